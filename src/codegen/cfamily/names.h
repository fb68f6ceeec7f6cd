// Identifier spellings in printed C-family source.
//
// User bindings (parameters, locals, loop variables, local arrays) live in
// their own namespace: `v_` followed by the name's encoding. Compiler names
// (helpers, slots, temporaries, entries) start with `tk_`. Neither can be
// a keyword or builtin of CUDA, HIP, OpenCL C or MSL, and neither can
// collide with the other.
//
// The encoding keeps ASCII letters, digits and single underscores, and
// writes every other code point c as `Z<hex of c>Z` (lowercase hex) and a
// literal Z as `ZZ`. An underscore that starts the name or follows another
// underscore, or ends the name, is written `Z5fZ`, so no spelling contains
// `__` (reserved in C++) or ends with `_`. Reading left to right decodes it, so distinct names have distinct
// encodings:
//
//   a -> v_a    my_var -> v_my_var    _t -> v_Z5fZt    λ -> v_Z3bbZ
//   Zeta -> v_ZZeta    __init__ -> v_Z5fZZ5fZinit_Z5fZ
//
// Two bindings with one name (an inlined function's local beside the
// caller's) get distinct spellings: the second and later ones append `Zn`
// and a number, which no encoding produces.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tack::codegen::cfamily {

// The encoding above, without the `v_` prefix. Bytes that are not valid
// UTF-8 encode as code points 0xdc80 + byte (as Python's surrogateescape).
std::string encode_identifier(std::string_view utf8_name);

// The name of one entry point of a kernel, shared by every backend that
// looks entries up by name: `tk_<encoding of kernel_name>_<suffix>`. The
// suffix (count, body, result, or a variant tag before one of them) must be
// letters and digits, so the last underscore separates it.
std::string entry_symbol(std::string_view kernel_name, std::string_view variant_suffix);

// Hands out distinct spellings for user bindings, in the order asked.
class BindingNames {
public:
    std::string add(std::string_view name);

private:
    std::map<std::string, int, std::less<>> uses_;
};

}  // namespace tack::codegen::cfamily
