#include "runtime/kernel.h"

#include <atomic>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "frontend/validate.h"
#include "runtime/errors.h"
#include "runtime/parallel.h"

namespace tack::runtime {

namespace {

std::atomic<uint64_t> next_kernel_id{0};

constexpr uint32_t kArrayTag = 1u << 28;
constexpr uint32_t kScalarTag = 2u << 28;

uint32_t array_key(const Array& a) {
    return kArrayTag | (static_cast<uint32_t>(a.dtype()) << 20) | (static_cast<uint32_t>(a.ndim()) << 12) |
           (a.contiguous() ? 1u : 0u);
}

DType float_precision_of(const CallArg* args, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (args[i].kind == CallArg::Kind::Array && args[i].array->dtype() == DType::F64) return DType::F64;
    return DType::F32;
}

uint32_t arg_key(const CallArg& a, DType precision) {
    switch (a.kind) {
        case CallArg::Kind::Array: return array_key(*a.array);
        case CallArg::Kind::Scalar: return kScalarTag | static_cast<uint32_t>(a.dtype);
        case CallArg::Kind::PythonFloat: return kScalarTag | static_cast<uint32_t>(precision);
    }
    return 0;
}

struct Launch {
    codegen::BodyFn body;
    void** argv;
};

void run_chunk(void* ctx, int64_t begin, int64_t end) {
    auto* l = static_cast<Launch*>(ctx);
    l->body(l->argv, begin, end);
}

}  // namespace

struct Kernel::Variant {
    std::vector<uint32_t> key;
    std::vector<ParamFacts> facts;
    std::unique_ptr<ir::Kernel> typed;
    codegen::CompiledCpuKernel code;
};

Kernel::Kernel(std::string name, std::shared_ptr<const syntax::Source> source, std::shared_ptr<frontend::Resolver> resolver)
    : name_(std::move(name)), source_(std::move(source)), resolver_(std::move(resolver)), id_(next_kernel_id++) {}

Kernel::~Kernel() = default;

const syntax::FunctionDef& Kernel::syntax_tree() {
    if (!tree_) {
        auto tree = syntax::parse_function(source_);
        frontend::validate(*tree, frontend::FunctionRole::Kernel);
        for (auto& p : tree->params) param_names_.push_back(p.name);
        tree_ = std::move(tree);
    }
    return *tree_;
}

size_t Kernel::param_count() { return syntax_tree().params.size(); }

const std::vector<std::string>& Kernel::param_names() {
    syntax_tree();
    return param_names_;
}

void Kernel::check_arity(size_t n) {
    size_t want = param_count();
    if (n != want)
        throw ArgumentError(ArgumentError::Kind::Type, "kernel '" + name_ + "' takes " + std::to_string(want) +
                                                           " argument" + (want == 1 ? "" : "s") + " but " +
                                                           std::to_string(n) + (n == 1 ? " was" : " were") + " given");
}

const ir::Kernel& Kernel::template_for(const std::vector<frontend::ParamShape>& shapes) {
    std::vector<std::pair<bool, int>> key;
    for (auto& s : shapes) key.emplace_back(s.is_array, s.ndim);
    auto it = templates_.find(key);
    if (it != templates_.end()) return *it->second;
    auto t = build_template(syntax_tree(), resolver_, shapes);
    auto& slot = templates_[key];
    slot = std::move(t);
    return *slot;
}

Kernel::Variant& Kernel::variant_for(const CallArg* args, size_t n) {
    DType precision = float_precision_of(args, n);
    // The cached path: compare keys in place, newest variant first.
    if (last_ && last_->key.size() == n) {
        bool same = true;
        for (size_t i = 0; i < n && same; ++i) same = last_->key[i] == arg_key(args[i], precision);
        if (same) return *last_;
    }
    for (auto& v : variants_) {
        if (v->key.size() != n) continue;
        bool same = true;
        for (size_t i = 0; i < n && same; ++i) same = v->key[i] == arg_key(args[i], precision);
        if (same) {
            last_ = v.get();
            return *v;
        }
    }

    check_arity(n);
    auto v = std::make_unique<Variant>();
    std::vector<frontend::ParamShape> shapes;
    for (size_t i = 0; i < n; ++i) {
        v->key.push_back(arg_key(args[i], precision));
        ParamFacts f;
        if (args[i].kind == CallArg::Kind::Array) {
            const Array& a = *args[i].array;
            if (a.ndim() > codegen::kMaxDims)
                throw ArgumentError(ArgumentError::Kind::Value,
                                    "kernel '" + name_ + "': parameter '" + param_names_[i] + "' has " +
                                        std::to_string(a.ndim()) + " dimensions; at most " +
                                        std::to_string(codegen::kMaxDims) + " are supported");
            f = ParamFacts{true, a.dtype(), a.ndim(), a.contiguous()};
        } else {
            f.dtype = args[i].kind == CallArg::Kind::PythonFloat ? precision : args[i].dtype;
        }
        v->facts.push_back(f);
        shapes.push_back(frontend::ParamShape{f.is_array, f.ndim});
    }
    const ir::Kernel& tmpl = template_for(shapes);
    v->typed = specialize(tmpl, v->facts, precision);
#ifdef TACK_WITH_LLVM
    v->code = compile_cpu(*v->typed, "tack.k" + std::to_string(id_) + ".v" + std::to_string(variants_.size()), false);
#else
    throw ArgumentError(ArgumentError::Kind::Runtime,
                        "kernel '" + name_ + "': this build of Tack has no CPU backend (built without LLVM)");
#endif
    variants_.push_back(std::move(v));
    last_ = variants_.back().get();
    return *last_;
}

CallResult Kernel::call(const CallArg* args, size_t n) {
    Variant& v = variant_for(args, n);
    DType precision = DType::F32;
    for (auto& f : v.facts)
        if (f.is_array && f.dtype == DType::F64) precision = DType::F64;

    constexpr size_t kInline = 16;
    void* argv_small[kInline];
    codegen::ArrayArg arrays_small[kInline];
    uint64_t scalars_small[kInline];
    std::vector<void*> argv_big;
    std::vector<codegen::ArrayArg> arrays_big;
    std::vector<uint64_t> scalars_big;
    void** argv = argv_small;
    codegen::ArrayArg* arrays = arrays_small;
    uint64_t* scalars = scalars_small;
    if (n > kInline) {
        argv_big.resize(n);
        arrays_big.resize(n);
        scalars_big.resize(n);
        argv = argv_big.data();
        arrays = arrays_big.data();
        scalars = scalars_big.data();
    }
    for (size_t i = 0; i < n; ++i) {
        const CallArg& a = args[i];
        switch (a.kind) {
            case CallArg::Kind::Array: {
                const Array& arr = *a.array;
                codegen::ArrayArg& slot = arrays[i];
                slot.data = arr.data();
                for (int d = 0; d < arr.ndim(); ++d) {
                    slot.shape[d] = arr.shape()[d];
                    slot.strides[d] = arr.strides()[d];
                }
                argv[i] = &slot;
                break;
            }
            case CallArg::Kind::Scalar:
                scalars[i] = a.bits;
                argv[i] = &scalars[i];
                break;
            case CallArg::Kind::PythonFloat:
                if (precision == DType::F32) {
                    float f = static_cast<float>(a.value);
                    scalars[i] = 0;
                    std::memcpy(&scalars[i], &f, sizeof f);
                } else {
                    std::memcpy(&scalars[i], &a.value, sizeof a.value);
                }
                argv[i] = &scalars[i];
                break;
        }
    }

    int64_t count = v.code.count(argv);
    if (count > 0) {
        Launch launch{v.code.body, argv};
        parallel_for(count, run_chunk, &launch);
    }
    CallResult r;
    if (v.code.result) {
        r.has_value = true;
        r.dtype = *v.typed->result_type;
        v.code.result(argv, &r.bits);
    }
    return r;
}

std::string Kernel::inspect(const std::string& what, const CallArg* args, size_t n) {
    if (what != "ir" && what != "llvm" && what != "llvm-unoptimized")
        throw ArgumentError(ArgumentError::Kind::Value,
                            "inspect() takes \"ir\", \"llvm\" or \"llvm-unoptimized\", not \"" + what + "\"");
    const ir::Kernel* typed = nullptr;
    std::ostringstream out;
    if (n == 0 && param_count() != 0) {
        if (!last_)
            throw ArgumentError(ArgumentError::Kind::Value, "kernel '" + name_ +
                                                                "' has not been compiled yet: call it first, or pass "
                                                                "example arguments to inspect()");
        typed = last_->typed.get();
    } else {
        check_arity(n);
        typed = variant_for(args, n).typed.get();
    }
    if (what == "ir") {
        // Re-run the pipeline with an observer to show each pass.
        std::vector<frontend::ParamShape> shapes;
        std::vector<ParamFacts> facts;
        DType precision = DType::F32;
        for (auto& p : typed->params) {
            shapes.push_back(frontend::ParamShape{p.kind == ir::ParamKind::Array, p.ndim});
            facts.push_back(ParamFacts{p.kind == ir::ParamKind::Array, p.dtype, p.ndim, p.contiguous});
            if (p.kind == ir::ParamKind::Array && p.dtype == DType::F64) precision = DType::F64;
        }
        PassObserver observe = [&](const char* pass, const ir::Kernel& k) {
            out << "# after " << pass << "\n" << ir::print(k) << "\n";
        };
        auto tmpl = build_template(syntax_tree(), resolver_, shapes, observe);
        specialize(*tmpl, facts, precision, observe);
        return out.str();
    }
#ifdef TACK_WITH_LLVM
    return llvm_ir(*typed, what == "llvm");
#else
    throw ArgumentError(ArgumentError::Kind::Runtime, "this build of Tack has no LLVM backend");
#endif
}

}  // namespace tack::runtime
