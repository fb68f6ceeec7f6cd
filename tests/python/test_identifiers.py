"""Issue 3, identifier preservation: Python-legal names keep their binding
identity as parameters, locals, loop variables, device-function names and
kernel names, even when they are keywords, builtins or helper spellings of
C, C++, CUDA, OpenCL, Metal or LLVM, start with `__`, or are not ASCII.
Compiler temporaries never collide with user names, and argument order is
what the signature says.

The per-name kernels are generated into one module file (Tack reads kernel
source through inspect) and imported once.
"""

import ast
import importlib.util
import sys
import unicodedata

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY
from device_share import device_share

# Spellings that mean something to a code generator or its runtime. `int`
# and `float` bound as locals shadow the builtins, which is Python's rule:
# the kernels below never call them.
TARGET_NAMES = [
    # C and C++
    "int", "float", "double", "char", "void", "long", "short", "unsigned", "signed", "auto", "register",
    "volatile", "static", "extern", "const", "struct", "union", "enum", "typedef", "sizeof", "switch", "case",
    "default", "goto", "do", "inline", "restrict", "bool", "template", "typename", "namespace", "new", "delete",
    "this", "operator", "private", "public", "virtual", "constexpr", "nullptr", "main", "printf", "malloc",
    "memcpy", "free", "exit", "sqrtf", "fabs", "std",
    # CUDA and HIP
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__global__", "__device__", "__shared__",
    "__syncthreads", "atomicAdd", "dim3", "float4", "half",
    # OpenCL
    "kernel", "__kernel", "__global", "local", "__local", "constant", "get_global_id", "uint", "ulong",
    "uchar", "image3d_t", "sampler_t", "read_only", "barrier",
    # Metal
    "device", "threadgroup", "thread", "metal", "uint2", "simd_sum",
    # LLVM IR and its helpers
    "define", "declare", "entry", "ret", "br", "label", "alloca", "undef", "poison", "i32", "i64", "f32",
    "phi", "select", "zeroinitializer", "tail", "nsw", "llvm", "__divti3",
    # global-like and underscore spellings, compiler-temporary look-alikes
    "global_", "_global", "globals", "__x", "__tmp", "__tack_t0", "__init__", "_", "__", "t0", "t1", "tmp",
    "ret0", "done0", "tack_body", "body", "count", "args",
    # Unicode
    "λ", "xᵢ", "変数", "ñandú", "δt", "µ",
]

_ids = {name: f"n{k}" for k, name in enumerate(TARGET_NAMES)}

PER_NAME = '''
@tack.kernel
def as_param_{id}({name}, out):
    for i in range(len(out)):
        out[i] = {name} * 2 + i

@tack.kernel
def as_local_{id}(a, out):
    {name} = 5
    for i in range(len(out)):
        {name} = a[i] + {name}
        out[i] = {name} * {name}

@tack.kernel
def as_loop_var_{id}(out):
    for {name} in range(len(out)):
        out[{name}] = {name} * 10

@tack.kernel
def as_inner_loop_var_{id}(out):
    for i in range(len(out)):
        for {name} in range(i + 1):
            out[i] += {name}

@tack.kernel
def as_array_{id}({name}, out):
    for i in range(len(out)):
        out[i] = {name}[i] + len({name})

@tack.func
def helper_{id}({name}):
    w_ = {name} + 1
    return w_ * {name}

@tack.kernel
def through_func_{id}(out):
    for i in range(len(out)):
        {name} = i + 100
        out[i] = helper_{id}(i) + {name}
'''

AS_KERNEL_NAME = '''
@tack.kernel
def {name}(a, out):
    for i in range(len(out)):
        out[i] = a[i] + {k}
'''


def _import_generated(tmp_path_factory, module, text):
    path = tmp_path_factory.mktemp("identifiers") / f"{module}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    text = "import tack\n" + "".join(PER_NAME.format(name=n, id=_ids[n]) for n in TARGET_NAMES)
    mod = _import_generated(tmp_path_factory, "tack_identifier_cases", text)
    yield mod
    sys.modules.pop("tack_identifier_cases", None)


@pytest.fixture(scope="module")
def kernels_named(tmp_path_factory):
    # Kernel names are module globals here, so nothing else lives in this
    # module: a kernel named `int` must not be read as the builtin.
    text = "import tack\n" + "".join(AS_KERNEL_NAME.format(name=n, k=k) for k, n in enumerate(TARGET_NAMES))
    mod = _import_generated(tmp_path_factory, "tack_identifier_kernel_names", text)
    yield mod
    sys.modules.pop("tack_identifier_kernel_names", None)


def ints(values):
    return tack.array(np.asarray(values, dtype=np.int32))


N = 5
BASE = np.arange(N, dtype=np.int32) * 3 - 4


# The C-family printer spells every user binding and entry point through
# one encoding (src/codegen/cfamily/names.h), whatever the name means to a
# dialect, and every name's kernels above reach the GPU source compile
# check in all four dialects from the CPU's run. A device backend builds a
# program per kernel (PoCL: about half a second, six kernels a name), so it
# runs a spread of the names; TACK_DEVICE_CASES=all runs them all.
@pytest.mark.device_cases(16)
@pytest.mark.parametrize("name", TARGET_NAMES)
def test_name_keeps_its_identity(backend, generated, name):
    """As a scalar parameter, a local, the parallel and a sequential loop
    variable, an array parameter, and a device function's parameter."""
    k = _ids[name]
    i = np.arange(N)

    out = tack.zeros(N, dtype=tack.i32)
    getattr(generated, f"as_param_{k}")(7, out)
    np.testing.assert_array_equal(out.numpy(), 7 * 2 + i, err_msg="as a parameter")

    out = tack.zeros(N, dtype=tack.i32)
    getattr(generated, f"as_local_{k}")(ints(BASE), out)
    np.testing.assert_array_equal(out.numpy(), (BASE + 5) ** 2, err_msg="as a local")

    out = tack.zeros(N, dtype=tack.i32)
    getattr(generated, f"as_loop_var_{k}")(out)
    np.testing.assert_array_equal(out.numpy(), i * 10, err_msg="as the parallel loop variable")

    out = tack.zeros(N, dtype=tack.i32)
    getattr(generated, f"as_inner_loop_var_{k}")(out)
    np.testing.assert_array_equal(out.numpy(), i * (i + 1) // 2, err_msg="as a sequential loop variable")

    out = tack.zeros(N, dtype=tack.i32)
    getattr(generated, f"as_array_{k}")(ints(BASE), out)
    np.testing.assert_array_equal(out.numpy(), BASE + N, err_msg="as an array parameter")

    out = tack.zeros(N, dtype=tack.i32)
    getattr(generated, f"through_func_{k}")(out)
    np.testing.assert_array_equal(out.numpy(), (i + 1) * i + i + 100, err_msg="in a device function and its caller")


def _kernel_names(backend):
    """The names each backend runs as kernel names: all of them on the CPU,
    a quarter spread over them on a device backend (device_share.py, the
    rule of device_cases above; each test loops over its names itself)."""
    return device_share(backend, enumerate(TARGET_NAMES), len(TARGET_NAMES) // 4)


def test_every_name_as_a_kernel_name(backend, kernels_named):
    a = ints(BASE)
    for k, name in _kernel_names(backend):
        kernel = getattr(kernels_named, unicodedata.normalize("NFKC", name))
        out = tack.zeros(N, dtype=tack.i32)
        kernel(a, out)
        np.testing.assert_array_equal(out.numpy(), BASE + k, err_msg=f"kernel named {name!r}")


def test_kernel_names_run_their_own_code_after_each_other(backend, kernels_named):
    # Every kernel is compiled by now; run them again in reverse order so a
    # symbol resolved by name to another kernel's code would show.
    a = ints(BASE)
    for k, name in reversed(_kernel_names(backend)):
        out = tack.zeros(N, dtype=tack.i32)
        getattr(kernels_named, unicodedata.normalize("NFKC", name))(a, out)
        np.testing.assert_array_equal(out.numpy(), BASE + k, err_msg=f"kernel named {name!r}")


def test_kernels_of_the_same_name_keep_their_own_code(backend):
    def make(delta):
        @tack.kernel
        def shift(out):
            for i in range(len(out)):
                out[i] = i + delta

        return shift

    one, two = make(tack.constant(1)), make(tack.constant(2))
    for kernel, delta in [(one, 1), (two, 2), (one, 1), (two, 2)]:
        out = tack.zeros(N, dtype=tack.i32)
        kernel(out)
        np.testing.assert_array_equal(out.numpy(), np.arange(N) + delta)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unicode_kernel_name_appears_in_diagnostics():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def λ_kernel_mit_ümlaut(out):
            for i in range(len(out)):
                out[i] = lambda: 1

        λ_kernel_mit_ümlaut(tack.zeros(N, dtype=tack.i32))
    assert error.value.function == "λ_kernel_mit_ümlaut"
    assert "in kernel 'λ_kernel_mit_ümlaut'" in str(error.value)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unicode_columns_count_code_points():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def unicode_columns(out):
            for i in range(len(out)):
                ΔΔΔ = 1; out[i] = {ΔΔΔ}

        unicode_columns(tack.zeros(N, dtype=tack.i32))
    line = next(t for t in open(__file__, encoding="utf-8").read().splitlines() if "{ΔΔΔ}" in t)
    assert error.value.column == line.index("{ΔΔΔ}") + 1


# ------------------------------------------------- temporaries and scopes


@tack.func
def pick(t0, ret0):
    done0 = t0 + ret0
    if t0 > ret0:
        return done0 * 2
    return done0


def pick_reference(t0, ret0):
    done0 = t0 + ret0
    if t0 > ret0:
        return done0 * 2
    return done0


@tack.kernel
def uses_temporary_spellings(a, out):
    for i in range(len(out)):
        t0 = a[i]
        t1 = i
        ret0 = 3
        done0 = 4
        t0, t1 = t1, t0
        ok = 0 < t0 < 3
        out[i] = pick(t0, t1) * 1000 + ret0 * 100 + done0 * 10 + ok
        out[t1 % len(out)] += 0


def test_user_names_that_look_like_temporaries(backend):
    values = [5, -2, 7, 0, 1]
    out = tack.zeros(len(values), dtype=tack.i32)
    uses_temporary_spellings(ints(values), out)
    expected = []
    for i, v in enumerate(values):
        t0, t1 = i, v
        ok = 1 if 0 < t0 < 3 else 0
        expected.append(pick_reference(t0, t1) * 1000 + 300 + 40 + ok)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.func
def clobbers(x, i):
    x = x * 10
    i = i + 1000
    out = 7
    return x + i + out


@tack.kernel
def caller_keeps_its_names(out):
    for i in range(len(out)):
        x = i + 1
        y = clobbers(x, i)
        out[i] = y * 100 + x * 10 + i


def test_callee_names_do_not_touch_the_callers_names(backend):
    out = tack.zeros(N, dtype=tack.i32)
    caller_keeps_its_names(out)
    i = np.arange(N)
    x = i + 1
    np.testing.assert_array_equal(out.numpy(), (x * 10 + i + 1000 + 7) * 100 + x * 10 + i)


@tack.func
def inner_twice(v):
    total = 0
    for k in range(2):
        total += v + k
    return total


@tack.kernel
def same_callee_twice_in_one_expression(out):
    for i in range(len(out)):
        total = 5
        k = 9
        out[i] = inner_twice(i) * 100 + inner_twice(total) + k


def test_two_inlined_copies_keep_separate_locals(backend):
    out = tack.zeros(N, dtype=tack.i32)
    same_callee_twice_in_one_expression(out)
    i = np.arange(N)
    np.testing.assert_array_equal(out.numpy(), (2 * i + 1) * 100 + (2 * 5 + 1) + 9)


# ------------------------------------------------------- argument order


@tack.kernel
def reversed_names(z, y, x, out):
    for i in range(len(out)):
        out[i] = z * 10000 + y * 100 + x


@tack.kernel
def arrays_out_of_order(b, a, arg1, arg0, out):
    for i in range(len(out)):
        out[i] = b[i] * 1000 + a[i] * 100 + arg1 * 10 + arg0


def test_scalar_argument_order_follows_the_signature(backend):
    out = tack.zeros(3, dtype=tack.i32)
    reversed_names(1, 2, 3, out)
    np.testing.assert_array_equal(out.numpy(), [10203] * 3)


def test_mixed_argument_order_follows_the_signature(backend):
    out = tack.zeros(3, dtype=tack.i64)
    b = tack.array(np.array([1, 2, 3], dtype=np.int64))
    a = tack.array(np.array([4, 5, 6], dtype=np.int16))
    arrays_out_of_order(b, a, 7, 8, out)
    np.testing.assert_array_equal(out.numpy(), [1000 + 400 + 78, 2000 + 500 + 78, 3000 + 600 + 78])


# ------------------------------------------------------------ NFKC spellings
# Python normalizes identifiers to NFKC: `xᵢ` and `xi`, `µ` (micro sign) and
# `μ` (mu) are one name each. Within the per-name cases above the spelling
# is consistent, so either reading binds it once.

xi = tack.constant(7)  # what Python's NFKC reading of `xᵢ` names at module level


@tack.kernel
def nfkc_spelling(out):
    for i in range(len(out)):
        xᵢ = i
        out[i] = xi


def test_nfkc_equivalent_spellings_never_read_another_binding(backend):
    # Python reads `xᵢ` and `xi` as one name, so the kernel stores i. Tack
    # may instead reject the read; it must not read the module's x1.
    out = tack.zeros(N, dtype=tack.i32)
    try:
        nfkc_spelling(out)
    except NameError:
        return
    np.testing.assert_array_equal(out.numpy(), np.arange(N))


@tack.device_class
class Named:
    select = 3  # a class constant spelled like an LLVM instruction

    def __init__(self, kernel, λ, threadIdx):
        self.kernel = kernel
        self.λ = λ
        self.threadIdx = threadIdx

    @tack.func
    def __global__(self, i):
        return self.kernel[i] * self.λ + self.threadIdx[1] + self.select


@tack.kernel
def through_named_instance(int, threadIdx, out):
    for i in range(len(out)):
        out[i] = int.__global__(i) + threadIdx


def test_device_class_attribute_and_method_names_keep_their_identity(backend):
    # Instance attributes become parameters named by their paths
    # ("int.kernel"), which no user name can spell, beside a user parameter
    # named like the attribute.
    values = np.arange(4, dtype=np.int32)
    out = tack.zeros(4, dtype=tack.i32)
    through_named_instance(Named(tack.array(values), 5, (7, 11)), 100, out)
    assert out.numpy().tolist() == (values * 5 + 11 + 3 + 100).tolist()


# ------------------------------------- characters that are not line breaks
# str.splitlines() breaks at these; Python's tokenizer does not (it ends lines
# at \n, \r\n and \r only). In a docstring or comment they must leave the
# NFKC reading of the names after them where Python puts it. The module is
# run twice: imported with Tack, and executed by CPython with decorators that
# do nothing, which is the oracle.

NOT_LINE_BREAKS = {
    "form-feed": "\x0c",
    "vertical-tab": "\x0b",
    "file-separator": "\x1c",
    "group-separator": "\x1d",
    "record-separator": "\x1e",
    "next-line": "\x85",
    "line-separator": "\u2028",
    "paragraph-separator": "\u2029",
}

# ℌ, ℍ and H are one name to Python, as are ﬁ and fi; the docstrings and
# comments spell them too, where they must stay as written.
BREAKER_CASES = '''
@tack.func
def scaled_{id}(v):
    """Scales v{c}by ℌ (which Python reads as H)."""
    ℌ = 3.0
    # a comment{c}ﬁ = 100.0 that stays a comment
    ﬁ = v * H
    return fi + ℍ

@tack.kernel
def in_docstring_{id}(x, out):
    """Fills out{c}from x and ℌ."""
    ℌ = 2.0
    for i in range(len(out)):
        ﬁ = x[i] * H
        out[i] = fi + scaled_{id}(x[i])

@tack.kernel
def in_comment_{id}(x, out):
    ℌ = 4.0  # four{c}ℌ
    # {c}
    for i in range(len(out)):
        # x[i]{c}times H, then ﬁ
        ﬁ = x[i] - H
        out[i] = ℍ * fi

@tack.kernel
def same_line_{id}(x, out):
    """One{c}line."""; ℌ = 5.0
    for i in range(len(out)):
        out[i] = x[i] + H

@tack.kernel
def reports_{id}(x, out):
    """Docs{c}more docs, ℌ."""
    ℌ = 1.0
    # a note{c}here
    for i in range(len(out)):
        assert x[i] > ℌ
'''

BREAKER_KERNELS = ["in_docstring", "in_comment", "same_line"]


class _PlainPython:
    """`tack` for the CPython run: decorators that leave functions as written."""

    @staticmethod
    def kernel(fn):
        return fn

    @staticmethod
    def func(fn):
        return fn


@pytest.fixture(scope="module")
def breakers(tmp_path_factory):
    text = "import tack\n" + "".join(
        BREAKER_CASES.format(id=name.replace("-", "_"), c=c) for name, c in NOT_LINE_BREAKS.items()
    )
    mod = _import_generated(tmp_path_factory, "tack_not_line_breaks", text)
    python = {"tack": _PlainPython}
    exec(compile(text.replace("import tack\n", "\n", 1), mod.__file__, "exec"), python)
    yield mod, python, text
    sys.modules.pop("tack_not_line_breaks", None)


@pytest.mark.parametrize("name", NOT_LINE_BREAKS)
def test_characters_that_are_not_line_breaks_keep_names_in_place(backend, breakers, name):
    mod, python, _ = breakers
    id = name.replace("-", "_")
    x = np.arange(N, dtype=np.float32) - 1
    for kernel in BREAKER_KERNELS:
        out = tack.zeros(N, dtype=tack.f32)
        getattr(mod, f"{kernel}_{id}")(tack.array(x), out)
        expected = np.zeros(N, dtype=np.float32)
        python[f"{kernel}_{id}"](x, expected)
        np.testing.assert_array_equal(out.numpy(), expected, err_msg=kernel)
    # The device function itself, run by CPython on the host.
    f = getattr(mod, f"scaled_{id}")
    assert [f(float(v)) for v in x] == [python[f"scaled_{id}"](float(v)) for v in x]


@pytest.mark.parametrize("name", NOT_LINE_BREAKS)
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_diagnostics_after_characters_that_are_not_line_breaks(breakers, name):
    mod, _, text = breakers
    id = name.replace("-", "_")
    with pytest.raises(tack.UnsupportedError) as error:
        getattr(mod, f"reports_{id}")(tack.zeros(N, dtype=tack.f32), tack.zeros(N, dtype=tack.f32))
    # CPython's own parser says where the assert is.
    tree = ast.parse(text)
    kernel = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == f"reports_{id}")
    statement = next(n for n in ast.walk(kernel) if isinstance(n, ast.Assert))
    assert (error.value.line, error.value.column) == (statement.lineno, statement.col_offset + 1)
    assert error.value.filename == mod.__file__
