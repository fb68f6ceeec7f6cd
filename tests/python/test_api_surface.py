"""The public API as help(), dir(), inspect and the type stubs present it.

The oracle for each check is Python's own machinery: the names a module
binds (dir), what pydoc renders, inspect.signature of the decorated Python
function, and the names the stub files declare (read with ast).
"""

import ast
import functools
import inspect
import os
import pickle
import pydoc
import types
from pathlib import Path

import numpy as np
import pytest

import tack
import tack.algorithms
import tack.algorithms.stats
import tack.random
import tack.tile

from float_bits import ulp_distance

PACKAGE = Path(tack.__file__).parent

# Public names of dir(module) deliberately left out of its __all__, each
# with the reason.
_SUBMODULE = "a submodule, loaded at first use; `from tack import *` leaves it out"
NOT_IN_ALL = {
    tack: {
        "algorithms": _SUBMODULE,
        "random": _SUBMODULE + " (it would shadow the standard library's random)",
        "tile": _SUBMODULE,
    },
    tack.tile: {
        name: "an import tile.py's functions use, not tack.tile's API"
        for name in ("Array", "array", "asarray", "copyto", "empty", "f32", "full", "i64", "itertools", "np")
    },
    tack.random: {
        # Device functions resolve names in their module's globals: the
        # kernels of tack.random read these.
        **{name: "a name the device functions of tack.random read" for name in ("f32", "u32", "math")},
        **{name: "an import random.py uses, not tack.random's API" for name in ("func", "np")},
    },
    tack.algorithms: {},
    tack.algorithms.stats: {
        name: "an import stats.py's kernels and functions use" for name in ("Array", "math", "np", "tack")
    },
}

@pytest.mark.parametrize("module", list(NOT_IN_ALL), ids=lambda m: m.__name__)
def test_all_lists_every_public_name_and_nothing_private(module):
    listed = module.__all__
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert [n for n in listed if n.startswith("_")] == []
    assert [n for n in listed if not hasattr(module, n)] == []
    public = {n for n in dir(module) if not n.startswith("_")}
    assert public - set(listed) == set(NOT_IN_ALL[module]), (
        "public names outside __all__ must be listed in NOT_IN_ALL with the reason"
    )


def documentation(obj):
    """The docstring help() shows for obj. Functions, classes, modules and
    callable objects have their own; a plain instance (a dtype such as
    tack.f32, an element type such as tack.vec3f) has none of its own and
    help() shows its class's, so its class's counts, provided that class is
    Tack's own (not object's or int's)."""
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)):
        return obj.__doc__
    if callable(obj) and "__doc__" in getattr(obj, "__dict__", {}):
        return obj.__dict__["__doc__"]  # a kernel or device function
    cls = type(obj)
    assert cls.__module__.startswith("tack"), f"{obj!r} is a plain {cls.__name__}; it cannot carry a docstring"
    return cls.__doc__


@pytest.mark.parametrize("module", list(NOT_IN_ALL), ids=lambda m: m.__name__)
def test_every_public_name_has_a_docstring(module):
    assert (module.__doc__ or "").strip()
    undocumented = [n for n in module.__all__ if not (documentation(getattr(module, n)) or "").strip()]
    assert undocumented == []


MATH_BUILTINS = {
    # tack name: NumPy's
    **{n: n for n in "sqrt sin cos tan exp log floor ceil tanh sinh cosh log2 log10 exp2 expm1 log1p cbrt".split()},
    **{n: n for n in "hypot copysign fmod trunc isnan isinf isfinite".split()},
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
}


@pytest.mark.parametrize("name", sorted(MATH_BUILTINS))
def test_a_math_builtin_on_the_host_is_numpys_function(name):
    ours, numpys = getattr(tack, name), getattr(np, MATH_BUILTINS[name])
    assert f"numpy.{MATH_BUILTINS[name]}" in ours.__doc__
    x = np.array([0.25, 0.5, 0.75, 1.5, 3.0], dtype=np.float32)
    args = (x, x[::-1]) if numpys.nin == 2 else (x,)
    with np.errstate(invalid="ignore", divide="ignore"):  # acosh(0.25), atanh(1.5): NaN
        want = numpys(*args)
        got = ours(*args)
        out = np.empty_like(want)
        assert ours(*args, out=out) is out  # NumPy's keywords pass through
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(out, want)


def test_numpy_spellings_of_the_math_builtins_compile_as_the_builtins():
    # tack.sqrt is no longer numpy.sqrt itself, but a kernel that calls
    # numpy.sqrt (or numpy.arcsin) still calls the builtin.
    x = np.linspace(0.01, 0.99, 97, dtype=np.float32)
    got = [tack.zeros(97) for _ in range(4)]
    numpy_spelled(tack.array(x), *got)
    np.testing.assert_array_equal(got[0].numpy(), np.sqrt(x))  # sqrt rounds correctly in f32
    # The others within the math builtins' 8-ulp bound of NumPy in float64,
    # rounded once to f32 (docs/numerics.md), and every x / 0 infinite.
    wide = x.astype(np.float64)
    assert np.all(ulp_distance(got[1].numpy(), np.arcsin(wide).astype(np.float32)) <= 8)
    assert np.all(ulp_distance(got[2].numpy(), np.hypot(wide, 2.0).astype(np.float32)) <= 8)
    np.testing.assert_array_equal(got[3].numpy(), np.zeros(97, np.float32))
    tack_spelled_outputs = [tack.zeros(97) for _ in range(4)]
    tack_spelled(tack.array(x), *tack_spelled_outputs)
    for a, b in zip(got, tack_spelled_outputs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@tack.kernel
def numpy_spelled(x, root, arc, hyp, edge):
    for i in range(len(x)):
        root[i] = np.sqrt(x[i])
        arc[i] = np.arcsin(x[i])
        hyp[i] = np.hypot(x[i], 2.0)
        edge[i] = np.isfinite(x[i] / (x[i] - x[i]))


@tack.kernel
def tack_spelled(x, root, arc, hyp, edge):
    for i in range(len(x)):
        root[i] = tack.sqrt(x[i])
        arc[i] = tack.asin(x[i])
        hyp[i] = tack.hypot(x[i], 2.0)
        edge[i] = tack.isfinite(x[i] / (x[i] - x[i]))


def test_import_tack_does_not_import_numpy(tmp_path):
    # NumPy loads at its first use: importing tack, making arrays and
    # launching kernels on them need none of it.
    import subprocess
    import sys

    program = tmp_path / "no_numpy.py"
    program.write_text(
        "import sys\n"
        "import tack\n"
        "loaded = ['numpy' in sys.modules]\n"
        "@tack.kernel\n"
        "def ramp(a, step):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = step * i + tack.sqrt(4.0)\n"
        "a = tack.zeros(5, dtype=tack.f64)\n"
        "ramp(a, 0.5)\n"
        "tack.set_num_threads(2)\n"
        "c = tack.constant(3, tack.i32)\n"
        "loaded.append('numpy' in sys.modules)\n"
        "print(loaded, a[4], a.sum(), a.numpy().tolist(), 'numpy' in sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["[False,", "False]", "4.0", "15.0", "[2.0,", "2.5,", "3.0,", "3.5,", "4.0]", "True"]


def test_help_lists_the_api():
    text = pydoc.render_doc(tack, renderer=pydoc.plaintext)
    for name in ("zeros", "kernel", "set_num_threads", "KernelTypeError", "DeviceFunction", "f32"):
        assert name in text
    assert "_threads_from_environment" not in text


def test_submodules_load_at_first_use():
    import subprocess
    import sys

    code = (
        "import sys, tack\n"
        "print(sorted(m for m in ('tack.random', 'tack.tile', 'tack.algorithms') if m in sys.modules))\n"
        "print(tack.random.uniform_np(5) == tack.random.uniform_np(5), 'tack.random' in sys.modules)\n"
        "print('random' in dir(tack))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "True True"
    assert out[2] == "True"


def test_a_kernel_reaches_a_submodule_not_yet_loaded(tmp_path):
    import subprocess
    import sys

    program = tmp_path / "draws.py"
    program.write_text(
        "import sys\n"
        "import numpy as np\n"
        "import tack\n"
        "assert 'tack.random' not in sys.modules\n"
        "@tack.kernel\n"
        "def draws(out):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = tack.random.uniform(tack.random.seed(i, 7))\n"
        "out = tack.zeros(16)\n"
        "draws(out)\n"
        "import tack.random as r\n"
        "print(np.array_equal(out.numpy(), r.uniform_np(r.seed_np(np.arange(16), 7))))\n"
    )
    result = subprocess.run([sys.executable, str(program)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_unknown_attribute_still_raises():
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        tack.no_such_name


# ---- Kernels and device functions wrap their Python function


def _plain(x, out, alpha):
    """Scales x by alpha into out."""


@tack.kernel
def scaled(x, out, alpha):
    """Scales x by alpha into out."""
    for i in range(len(x)):
        out[i] = alpha * x[i]


@tack.func
def twice(v):
    """Twice v."""
    return v + v


@pytest.mark.parametrize("wrapper", [scaled, twice], ids=["kernel", "func"])
def test_decorators_keep_the_function_attributes(wrapper):
    fn = wrapper.__wrapped__
    assert isinstance(fn, types.FunctionType)
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__"):
        assert getattr(wrapper, attribute) == getattr(fn, attribute)
    assert wrapper.__name__ == fn.__code__.co_name
    assert wrapper.__module__ == __name__
    assert inspect.signature(wrapper) == inspect.signature(fn)
    assert inspect.getdoc(wrapper) == inspect.getdoc(fn)


@pytest.mark.parametrize("decorator", ["kernel", "func"])
def test_decorators_take_functions_only(decorator):
    # A class, a builtin, a functools.partial or a kernel or device function
    # already made is a TypeError saying so (a class and a kernel raised
    # AttributeError: no attribute '__globals__').
    class Plain:
        pass

    decorate = getattr(tack, decorator)
    refused = [(Plain, "not the class '.*Plain' \\(@tack.device_class declares a class"),
               (len, "written with def, not <built-in function len>"),
               (functools.partial(_plain, alpha=1.0), "written with def, not functools.partial"),
               (scaled, "'scaled' is a @tack.kernel already"), (twice, "'twice' is a @tack.func already")]
    for given, message in refused:
        with pytest.raises(TypeError, match=f"@tack.{decorator} decorates a function.*{message}"):
            decorate(given)


def test_kernel_signature_is_the_python_functions():
    assert inspect.signature(scaled) == inspect.signature(_plain)
    assert str(inspect.signature(scaled)) == "(x, out, alpha)"
    assert str(inspect.signature(twice)) == "(v)"


def test_a_nested_kernel_has_its_qualified_name_and_still_runs():
    @tack.kernel
    def inner(x):
        for i in range(len(x)):
            x[i] = twice(x[i])

    assert inner.__qualname__ == "test_a_nested_kernel_has_its_qualified_name_and_still_runs.<locals>.inner"
    assert inner.__name__ == "inner" and inner.__doc__ is None
    x = tack.array(np.arange(4, dtype=np.int32))
    inner(x)
    np.testing.assert_array_equal(x.numpy(), np.arange(4, dtype=np.int32) * 2)


def test_wrapped_kernel_still_runs_and_pickles():
    x = tack.array(np.arange(5, dtype=np.float32))
    out = tack.zeros(5)
    scaled(x, out, 3.0)
    np.testing.assert_array_equal(out.numpy(), np.arange(5, dtype=np.float32) * np.float32(3.0))
    assert pickle.loads(pickle.dumps(scaled)) is scaled


# ---- The stubs declare what exists


def _stub_tree(name):
    return ast.parse((PACKAGE / name).read_text())


def _declared(body):
    """{name: node} of the names a stub's statements bind."""
    names = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            names.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            # `from m import a as b` declares b (stubgen's form for a Python
            # function it finds on a bound class); a plain `from m import a`
            # only serves the annotations.
            names.update({a.asname: node for a in node.names if a.asname})
    return names


def test_core_stub_declares_no_phantom_names():
    from tack import _core

    declared = _declared(_stub_tree("_core.pyi").body)
    phantoms = [n for n in declared if not hasattr(_core, n)]
    assert phantoms == []
    missing = [n for n in vars(_core) if not n.startswith("__") and n not in declared]
    assert missing == []


def test_core_stub_classes_declare_their_members():
    from tack import _core

    for name, node in _declared(_stub_tree("_core.pyi").body).items():
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(_core, name)
        members = _declared(node.body)
        phantoms = [m for m in members if not hasattr(cls, m)]
        assert phantoms == [], name
        public = [m for m in dir(cls) if not m.startswith("_") and m not in members]
        assert public == [], f"{name} has members its stub lacks"


def test_array_stub_has_the_python_methods():
    node = _declared(_stub_tree("_core.pyi").body)["Array"]
    members = _declared(node.body)
    for method in ("sum", "min", "max", "mean", "copy", "astype"):
        assert isinstance(members.get(method), ast.FunctionDef), method
        assert members[method].returns is not None


def test_tile_stub_matches_tile():
    declared = {n: node for n, node in _declared(_stub_tree("tile.pyi").body).items()}
    functions = {n: node for n, node in declared.items() if isinstance(node, ast.FunctionDef)}
    assert set(functions) == set(tack.tile.__all__)
    for name, node in functions.items():
        runtime = inspect.signature(getattr(tack.tile, name))
        args = node.args
        stub = [a.arg for a in args.posonlyargs + args.args]
        stub += ["*" + args.vararg.arg] if args.vararg else []
        stub += [a.arg for a in args.kwonlyargs]
        actual = [("*" + p.name) if p.kind is p.VAR_POSITIONAL else p.name for p in runtime.parameters.values()]
        assert stub == actual, name
        assert node.returns is not None and all(a.annotation is not None for a in args.args + args.kwonlyargs)


def test_py_typed_marks_the_package():
    assert (PACKAGE / "py.typed").is_file()


# Kernel-language builtins take whatever the kernel's types are (any scalar
# type, vectors, arrays), which a Python annotation cannot state usefully;
# the host API is annotated.
_KERNEL_LANGUAGE = set(
    "atomic_add atomic_cas atomic_exch atomic_max atomic_min atomic_sub barrier block_max block_min block_sum "
    "clamp erf erfc identity local_array local_array_like mat mat2 mat3 mat4 ndindex round select shared "
    "shared_like thread_id vec2 vec3 vec4".split()
) | set(MATH_BUILTINS)


def test_host_functions_are_annotated():
    unannotated = []
    for name in tack.__all__:
        fn = getattr(tack, name)
        if not isinstance(fn, types.FunctionType) or name in _KERNEL_LANGUAGE:
            continue
        sig = inspect.signature(fn)
        if sig.return_annotation is sig.empty or any(p.annotation is p.empty for p in sig.parameters.values()):
            unannotated.append(name)
    assert unannotated == []
