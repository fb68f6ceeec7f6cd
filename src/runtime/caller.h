// What the runtime asks of the code that calls it. The Python bindings
// release the interpreter's lock while compiled code runs or while a thread
// waits for another's compile, and report a pending Ctrl-C between chunks
// of a launch.
#pragma once

#include <stdexcept>

namespace tack::runtime {

class Caller {
public:
    virtual ~Caller() = default;
    // Between release() and reacquire() the runtime calls nothing of the
    // caller's except interrupted().
    virtual void release() {}
    virtual void reacquire() {}
    // Asked on the calling thread, while released, between chunks of a
    // launch: true stops the launch.
    virtual bool interrupted() { return false; }
};

// A launch stopped because Caller::interrupted() said so; the chunks that
// had started finished, the others did not run.
class Interrupted : public std::runtime_error {
public:
    Interrupted() : std::runtime_error("the launch was interrupted") {}
};

// Holds the caller released for a scope (no caller: nothing to do).
class Released {
public:
    explicit Released(Caller* c) : c_(c) {
        if (c_) c_->release();
    }
    ~Released() {
        if (c_) c_->reacquire();
    }
    Released(const Released&) = delete;
    Released& operator=(const Released&) = delete;

private:
    Caller* c_;
};

}  // namespace tack::runtime
