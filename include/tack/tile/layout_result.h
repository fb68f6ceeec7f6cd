// Result<T>: a value of the layout algebra, or the reason there is none.
//
// Every operation of the algebra whose precondition can fail returns a
// Result. Two kinds of failure are kept apart because callers treat them
// differently: an inadmissible argument is a definite "no" (the arguments
// violate the operation's precondition), while unknown means a dynamic extent
// or stride hides a value the operation needs, and a runtime check or a
// static value could still make the operation defined. Neither ever carries a
// layout: the algebra returns no value rather than a wrong one.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace tack::tile {

enum class FailureKind {
  inadmissible,  // the arguments violate the operation's precondition
  unknown,       // a dynamic value hides something the operation must know
};

struct Failure {
  FailureKind kind;
  std::string message;  // a full sentence that names the operation
};

inline Failure inadmissible(std::string message) {
  return Failure{FailureKind::inadmissible, std::move(message)};
}

inline Failure unknown(std::string message) {
  return Failure{FailureKind::unknown, std::move(message)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Failure failure) : state_(std::move(failure)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  bool is_unknown() const { return !ok() && failure().kind == FailureKind::unknown; }
  bool is_inadmissible() const { return !ok() && failure().kind == FailureKind::inadmissible; }

  // Precondition: ok(). Reading the value of a failed Result is a caller bug;
  // it throws with the diagnostic so the bug report says what failed.
  const T& value() const& {
    if (!ok()) throw std::logic_error("value() of a failed Result: " + failure().message);
    return std::get<0>(state_);
  }
  T&& value() && {
    if (!ok()) throw std::logic_error("value() of a failed Result: " + failure().message);
    return std::get<0>(std::move(state_));
  }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  // Precondition: !ok().
  const Failure& failure() const { return std::get<1>(state_); }
  // The failure's message, or "" when ok().
  const std::string& diagnostic() const {
    static const std::string none;
    return ok() ? none : failure().message;
  }

 private:
  std::variant<T, Failure> state_;
};

}  // namespace tack::tile
