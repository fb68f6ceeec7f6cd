#include "driver/code_store.h"

#include "driver/disk_cache.h"

namespace tack::driver {

namespace {

// Code under a text key resolves no names: every lookup is unbound.
class NoNames final : public frontend::Resolver {
public:
    frontend::Resolution resolve(const std::vector<std::string>&) override { return {}; }
};

class DiskCodeStore final : public backends::CodeStore {
public:
    std::unique_ptr<backends::Executable> load(backends::Backend& backend, const std::string& name,
                                               const std::string& key) override {
        NoNames none;
        std::optional<CachedVariant> cached = disk_cache_load(slot(backend, name, key), backend, none);
        return cached ? std::move(cached->code) : nullptr;
    }

    void store(backends::Backend& backend, const std::string& name, const std::string& key,
               const backends::Executable& code) override {
        // A recording resolver that answered nothing: the entry's names are none.
        std::shared_ptr<frontend::Resolver> recorded = recording_resolver(std::make_shared<NoNames>());
        disk_cache_store(slot(backend, name, key), *recorded, {}, backend, code, DispatchFacts{});
    }

private:
    static DiskCacheSlot slot(backends::Backend& backend, const std::string& name, const std::string& key) {
        syntax::Source source;
        source.text = key;
        source.filename = "<code store>";
        return disk_cache_slot(backend, name, source, {});
    }
};

}  // namespace

std::shared_ptr<backends::CodeStore> disk_code_store() {
    static const std::shared_ptr<backends::CodeStore> store = std::make_shared<DiskCodeStore>();
    return store;
}

}  // namespace tack::driver
