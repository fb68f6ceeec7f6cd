"""The disk cache across processes (docs/caching.md).

Each test runs kernels in fresh Python processes that share a cache folder
in tmp_path, reads the cache's log lines (TACK_CACHE_LOG=1) to see hits and
misses, and checks every result against NumPy computed here.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import tack
from backends import LLVM_INSPECTION, WORKGROUPS

PYTHON_DIR = str(Path(tack.__file__).resolve().parent.parent)
LOG_LINE = re.compile(r"^tack disk cache: (\w+) (\S+)", re.M)


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def start(script, cache, *args, env=None):
    """Runs the script in a fresh process on this process's default device
    (the backend under test), unless env names another."""
    environment = dict(os.environ, PYTHONPATH=PYTHON_DIR, TACK_CACHE_DIR=str(cache), TACK_CACHE_LOG="1",
                       TACK_DEVICE=tack.get_default_device())
    environment.pop("TACK_DISABLE_DISK_CACHE", None)
    environment.pop("TACK_CACHE_MAX_BYTES", None)
    environment.update(env or {})
    return subprocess.Popen(
        [sys.executable, str(script), *map(str, args)],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process):
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    events = {}
    for event, kernel in LOG_LINE.findall(err):
        events.setdefault(kernel, []).append(event)
    return json.loads(out.strip().splitlines()[-1]), events


def run(script, cache, *args, env=None):
    return finish(start(script, cache, *args, env=env))


def entries(cache):
    return sorted(cache.glob("v*/*.tk"))


# The disk cache's file handling (eviction, clearing) is the same for every
# device's entries; these cases exercise it through the CPU's.
FILE_HANDLING = "the disk cache's file handling, the same for every device's entries, exercised through the CPU's"


# A kernel with a device function, a tack.constant and a value-returning
# kernel; `python script.py DTYPE` runs them on arrays of that dtype.
SAXPY = """
    import json, sys
    import numpy as np
    import tack

    SCALE = tack.constant({scale})

    @tack.func
    def scaled(v):
        return v * SCALE{helper_extra}

    @tack.kernel
    def saxpy(alpha, x, y):
        for i in range(len(x)):
            y[i] = alpha * scaled(x[i]) + y[i]{kernel_extra}

    @tack.kernel
    def head_sum(x) -> tack.f64:
        for i in range(len(x)):
            x[i] = x[i] + 1
        return x[0] + x[1]

    dtype = sys.argv[1]
    x = tack.array(np.arange(10).astype(dtype))
    y = tack.array(np.linspace(-1, 1, 10).astype(dtype))
    saxpy(2.0, x, y)
    total = head_sum(x)
    print(json.dumps({{"y": y.numpy().tolist(), "x": x.numpy().tolist(), "total": total}}))
"""


def saxpy_script(tmp_path, scale=3.0, helper_extra="", kernel_extra=""):
    return write(
        tmp_path / "saxpy_kernels.py", SAXPY.format(scale=scale, helper_extra=helper_extra, kernel_extra=kernel_extra)
    )


def saxpy_oracle(dtype, scale=3.0, helper_offset=0.0, kernel_offset=0.0):
    x = np.arange(10).astype(dtype)
    y = np.linspace(-1, 1, 10).astype(dtype)
    alpha = np.array(2.0, dtype=dtype)
    y = alpha * ((x * np.array(scale, dtype)) + np.array(helper_offset, dtype)) + y + np.array(kernel_offset, dtype)
    x = x + 1
    return y, x, float(x[0] + x[1])


def check_saxpy(result, dtype, **oracle):
    y, x, total = saxpy_oracle(dtype, **oracle)
    np.testing.assert_array_equal(np.array(result["y"], dtype=dtype), y)
    np.testing.assert_array_equal(np.array(result["x"], dtype=dtype), x)
    assert result["total"] == total


@pytest.mark.skipif(not [d for d in tack.available_devices() if WORKGROUPS[d]], reason="no device with workgroups "
                    "is available (install PoCL for OpenCL: pocl-opencl-icd)")
def test_a_cached_workgroup_kernel_still_needs_complete_groups(tmp_path):
    # What the launch checks travels in the entry: a second process that
    # links the cached code still refuses a partial group.
    device = next(d for d in tack.available_devices() if WORKGROUPS[d])
    script = write(tmp_path / "groups.py", """
        import json, sys
        import numpy as np
        import tack

        @tack.kernel
        def group_sums(x, out):
            for i in range(len(x)):
                out[i] = tack.block_sum(x[i])

        n = int(sys.argv[1])
        out = tack.zeros(n)
        try:
            group_sums(tack.array(np.ones(n, dtype=np.float32)), out)
            print(json.dumps({"out": out.numpy().tolist()}))
        except ValueError as e:
            print(json.dumps({"refused": str(e)}))
        """)
    cache = tmp_path / "cache"
    env = {"TACK_DEVICE": device}
    partial = "the launch has 300 iterations, which is not a multiple of 256"
    # A cold call: refused before the device compiles, so nothing is stored.
    first, events = run(script, cache, 300, env=env)
    assert events == {"group_sums": ["miss"]}
    assert partial in first["refused"]
    second, events = run(script, cache, 512, env=env)
    assert events == {"group_sums": ["miss", "stored"]}
    assert second == {"out": [256.0] * 512}
    # The cached code, linked by a third process, checks each launch's count.
    third, events = run(script, cache, 300, env=env)
    assert events == {"group_sums": ["hit"]}
    assert partial in third["refused"]


def test_a_second_process_links_the_cached_code(backend, tmp_path):
    cache = tmp_path / "cache"
    script = saxpy_script(tmp_path)
    first, events = run(script, cache, "float32")
    assert events == {"saxpy": ["miss", "stored"], "head_sum": ["miss", "stored"]}
    check_saxpy(first, "float32")
    assert len(entries(cache)) == 2
    assert all(e.parent.name.startswith("v3-") for e in entries(cache))

    second, events = run(script, cache, "float32")
    assert events == {"saxpy": ["hit"], "head_sum": ["hit"]}
    check_saxpy(second, "float32")


# tack.tile's kernels on the default device: a sort by rows (sort_runs, then
# merge_path passes) and a Top-K, of rows with ties and a NaN.
TILE = """
    import json
    import numpy as np
    import tack, tack.tile

    x = np.random.default_rng(0).integers(-3, 4, (37, 45)).astype(np.float32)
    x[3, 5] = np.nan
    a = tack.array(x, device=tack.get_default_device())
    v, i = tack.tile.topk(a, 5)
    print(json.dumps({"sort": tack.tile.sort(a).numpy().tolist(), "topk": i.numpy().tolist()}))
"""


def check_tile(result):
    x = np.random.default_rng(0).integers(-3, 4, (37, 45)).astype(np.float32)
    x[3, 5] = np.nan
    assert np.array_equal(np.array(result["sort"], np.float32), np.sort(x, axis=1), equal_nan=True)
    # Largest first, NaN above everything, ties by lower position.
    want = [sorted(range(45), key=lambda j: (0 if np.isnan(x[r, j]) else 1, -x[r, j], j))[:5] for r in range(37)]
    assert result["topk"] == want


def test_a_second_process_links_tile_kernels_cached_code(tmp_path):
    # Tile kernels' code on the CPU is kept under their TileIR and compile
    # options (backends/tile_kernel.h): the second process compiles nothing.
    # (The C-family backends compile tile kernels afresh in each process.)
    cache = tmp_path / "cache"
    script = write(tmp_path / "tile_script.py", TILE)
    first, events = run(script, cache)
    check_tile(first)
    # One miss and one store per kernel (sort's merge passes may be several).
    assert events and all(e == ["miss", "stored"] * (len(e) // 2) for e in events.values()), events
    assert {"topk", "sort_runs", "merge_path"} <= set(events)
    second, again = run(script, cache)
    check_tile(second)
    assert again == {k: ["hit"] * (len(e) // 2) for k, e in events.items()}


@pytest.mark.skipif("opencl" not in tack.available_devices(), reason="no OpenCL device: " +
                    (tack._core.device_unavailable_reason("opencl") or "?"))
def test_opencl_program_binaries_are_cached_per_device(tmp_path):
    # Each process gets an empty PoCL cache, so a hit means Tack loaded the
    # program binary it stored; the CPU's entries are separate ones.
    cache = tmp_path / "cache"
    script = saxpy_script(tmp_path)

    def on(device):
        return {"TACK_DEVICE": device, "POCL_CACHE_DIR": str(tmp_path / f"pocl-{len(list(tmp_path.iterdir()))}")}

    first, events = run(script, cache, "float32", env=on("opencl"))
    assert events == {"saxpy": ["miss", "stored"], "head_sum": ["miss", "stored"]}
    check_saxpy(first, "float32")
    second, events = run(script, cache, "float32", env=on("opencl"))
    assert events == {"saxpy": ["hit"], "head_sum": ["hit"]}
    check_saxpy(second, "float32")
    third, events = run(script, cache, "float32", env=on("cpu"))
    assert events == {"saxpy": ["miss", "stored"], "head_sum": ["miss", "stored"]}
    check_saxpy(third, "float32")
    assert len(entries(cache)) == 4


@pytest.mark.parametrize(
    "change, event, oracle",
    [
        ({"kernel_extra": " + 0.5"}, "miss", {"kernel_offset": 0.5}),
        ({"helper_extra": " + 0.25"}, "stale", {"helper_offset": 0.25}),
        ({"scale": -4.0}, "stale", {"scale": -4.0}),
        ({"scale": 3}, "stale", {}),  # an int constant: a different literal, the same values here
    ],
    ids=["kernel-source", "device-function-source", "constant-value", "constant-type"],
)
def test_a_change_the_kernel_depends_on_recompiles(backend, tmp_path, change, event, oracle):
    cache = tmp_path / "cache"
    run(saxpy_script(tmp_path), cache, "float32")
    result, events = run(saxpy_script(tmp_path, **change), cache, "float32")
    assert events["saxpy"][0] == event
    assert events["saxpy"][1:] == ["stored"]
    check_saxpy(result, "float32", **oracle)


def test_another_argument_dtype_is_another_entry(backend, tmp_path):
    cache = tmp_path / "cache"
    script = saxpy_script(tmp_path)
    run(script, cache, "float32")
    result, events = run(script, cache, "float64")
    assert events["saxpy"] == ["miss", "stored"]
    check_saxpy(result, "float64")
    assert len(entries(cache)) == 4
    result, events = run(script, cache, "float64")
    assert events["saxpy"] == ["hit"]
    check_saxpy(result, "float64")


def test_a_same_named_function_from_another_module_is_not_reused(backend, tmp_path):
    # One kernel file imports `helpers.scale` from whichever folder comes first
    # on sys.path: the kernel's text and file are the same, its callee differs.
    cache = tmp_path / "cache"
    for folder, factor in (("a", 2), ("b", 5)):
        (tmp_path / folder).mkdir()
        write(
            tmp_path / folder / "helpers.py",
            f"""
            import tack

            @tack.func
            def scale(v):
                return v * {factor}
            """,
        )
    script = write(
        tmp_path / "apply_scale.py",
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import numpy as np
        import tack
        from helpers import scale

        @tack.kernel
        def apply(x):
            for i in range(len(x)):
                x[i] = scale(x[i])

        x = tack.array(np.arange(6, dtype=np.int32))
        apply(x)
        print(json.dumps(x.numpy().tolist()))
        """,
    )
    for folder, factor, event in (("a", 2, "miss"), ("b", 5, "stale"), ("b", 5, "hit"), ("a", 2, "stale")):
        result, events = run(script, cache, tmp_path / folder)
        assert events["apply"][0] == event
        assert result == (np.arange(6) * factor).tolist()


def test_a_changed_vector_constant_is_stale(backend, tmp_path):
    cache = tmp_path / "cache"
    script_text = """
        import json, sys
        import numpy as np
        import tack

        D = tack.constant([{a}, {b}])

        @tack.kernel
        def dotted(x, out):
            for i in range(len(out)):
                out[i] = tack.vec2(x[i], 1.0).dot(D)

        out = tack.zeros(3, dtype=tack.f64)
        dotted(tack.array(np.arange(3, dtype=np.float64)), out)
        print(json.dumps(out.numpy().tolist()))
    """
    for (a, b), event in (((1.5, 2.0), "miss"), ((1.5, -0.5), "stale"), ((1.5, -0.5), "hit")):
        script = write(tmp_path / "vector_constant.py", script_text.format(a=a, b=b))
        result, events = run(script, cache, env={"PYTHONDONTWRITEBYTECODE": "1"})
        assert events["dotted"][0] == event
        assert result == (np.arange(3.0) * a + b).tolist()


def test_device_class_instances_are_cached_by_content_and_checked_by_their_methods(backend, tmp_path):
    # The class lives in one module and its method calls `helpers.scale`,
    # found through the class's module: a change there must reach a cached
    # kernel that only receives the instance.
    cache = tmp_path / "cache"

    def write_modules(factor, offset):
        write(
            tmp_path / "helpers.py",
            f"""
            import tack

            @tack.func
            def scale(v):
                return v * {factor}
            """,
        )
        write(
            tmp_path / "shapes.py",
            f"""
            import tack
            from helpers import scale

            @tack.device_class
            class Scaled:
                offset = {offset}

                def __init__(self, values):
                    self.values = values

                @tack.func
                def at(self, i):
                    return scale(self.values[i]) + self.offset
            """,
        )

    script = write(
        tmp_path / "use_shapes.py",
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import numpy as np
        import tack
        from shapes import Scaled

        @tack.kernel
        def apply(s, out):
            for i in range(len(out)):
                out[i] = s.at(i)

        out = tack.zeros(6, dtype=tack.i32)
        apply(Scaled(tack.array(np.arange(6, dtype=np.int32))), out)
        print(json.dumps(out.numpy().tolist()))
        """,
    )
    steps = [
        (2, 1, "miss"),
        (2, 1, "hit"),
        (7, 1, "stale"),  # the helper the method calls changed
        (7, 1, "hit"),
        (7, -3, "miss"),  # a class constant is part of the content key
    ]
    for factor, offset, event in steps:
        write_modules(factor, offset)
        # No bytecode files: a rewrite within the same second must be read.
        result, events = run(script, cache, tmp_path, env={"PYTHONDONTWRITEBYTECODE": "1"})
        assert events["apply"][0] == event, (factor, offset, events)
        assert result == (np.arange(6) * factor + offset).tolist()


# Kernels, a device function and a device-class method whose bodies a test
# rewrites after import. Each kernel body is also a plain function (`*_py`)
# of the same text: CPython running the imported module is the oracle.
EDITED = """
    import numpy as np
    import tack

    @tack.func
    def helper(v):
        return v * {helper_factor}

    @tack.device_class
    class Shift:
        def __init__(self, offset):
            self.offset = offset

        @tack.func
        def apply(self, v):
            return v + self.offset * {method_factor}

    def through_func_py(x, out):
        for i in range(len(out)):
            out[i] = helper(x[i]) + 1.0

    def through_method_py(s, x, out):
        for i in range(len(out)):
            out[i] = s.apply(x[i])

    def direct_py(x, out):
        for i in range(len(out)):
            out[i] = x[i] * {kernel_factor}

    through_func = tack.kernel(through_func_py)
    through_method = tack.kernel(through_method_py)
    direct = tack.kernel(direct_py)
"""

RUN_EDITED = """
    import importlib.util, json, os, sys
    import numpy as np
    import tack

    path, replacement = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("edited_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["edited_kernels"] = mod
    spec.loader.exec_module(mod)
    if replacement != "-":
        # Edited after import, as by an editor: new text and a newer mtime.
        before = os.stat(path).st_mtime
        with open(replacement) as new, open(path, "w") as f:
            f.write(new.read())
        os.utime(path, (before + 10, before + 10))

    x = np.arange(6, dtype=np.float32) - 2
    results = {}
    for name, leading in [("through_func", ()), ("through_method", (mod.Shift(2.0),)), ("direct", ())]:
        out = tack.zeros(6, dtype=tack.f32)
        getattr(mod, name)(*leading, tack.array(x), out)
        expected = np.zeros(6, dtype=np.float32)
        getattr(mod, name + "_py")(*leading, x, expected)  # the module's code, run by CPython
        results[name] = [out.numpy().tolist(), expected.tolist()]
    print(json.dumps(results))
"""


def test_source_is_captured_at_decoration_and_keys_the_cache(backend, tmp_path):
    cache = tmp_path / "cache"
    script = write(tmp_path / "run_edited.py", RUN_EDITED)
    (tmp_path / "mod").mkdir()
    original = EDITED.format(helper_factor=2.0, method_factor=3.0, kernel_factor=4.0)
    module = write(tmp_path / "mod" / "edited_kernels.py", original)
    edited = write(tmp_path / "edited_text.py", EDITED.format(helper_factor=5.0, method_factor=7.0, kernel_factor=-1.5))
    no_bytecode = {"PYTHONDONTWRITEBYTECODE": "1"}

    # Imported, then edited before the first call: the imported code runs.
    first, events = run(script, cache, module, edited, env=no_bytecode)
    assert module.read_text() == edited.read_text()
    assert {name: got for name, (got, _) in first.items()} == {name: oracle for name, (_, oracle) in first.items()}
    assert all(e == ["miss", "stored"] for e in events.values()), events

    # A new process imports the edited file: its text runs, not the entries
    # compiled from the old one.
    second, events = run(script, cache, module, "-", env=no_bytecode)
    assert {name: got for name, (got, _) in second.items()} == {name: oracle for name, (_, oracle) in second.items()}
    for name, (_, oracle) in second.items():
        assert oracle != first[name][1], name  # the edit changed what CPython computes
    assert events == {
        "through_func_py": ["stale", "stored"],  # the same kernel text, another helper text
        "through_method_py": ["miss", "stored"],  # the method's text is in the key
        "direct_py": ["miss", "stored"],
    }

    third, events = run(script, cache, module, "-", env=no_bytecode)
    assert third == second
    assert all(e == ["hit"] for e in events.values()), events


@pytest.mark.parametrize("damage", ["flip-payload", "flip-header", "truncate", "empty"])
def test_a_damaged_entry_is_detected_and_replaced(backend, tmp_path, damage):
    cache = tmp_path / "cache"
    script = saxpy_script(tmp_path)
    run(script, cache, "float32")
    for entry in entries(cache):
        data = bytearray(entry.read_bytes())
        if damage == "flip-payload":
            data[len(data) // 2] ^= 0xFF
        elif damage == "flip-header":
            data[20] ^= 0x01
        elif damage == "truncate":
            data = data[: len(data) - 7]
        else:
            data = bytearray()
        entry.write_bytes(bytes(data))
    result, events = run(script, cache, "float32")
    assert events == {"saxpy": ["corrupt", "stored"], "head_sum": ["corrupt", "stored"]}
    check_saxpy(result, "float32")
    assert all(entry.stat().st_size > 100 for entry in entries(cache))


NUMBERED = """
    import json, sys, time
    import numpy as np
    import tack

    {kernels}

    x = tack.array(np.arange(4, dtype=np.int32))
    for name in sys.argv[1:]:
        globals()[name](x)
        time.sleep(0.02)  # distinct modification times order the entries
    print(json.dumps(x.numpy().tolist()))
"""


def numbered_script(tmp_path, count):
    kernels = "\n".join(
        f"@tack.kernel\ndef k{n}(x):\n    for i in range(len(x)):\n        x[i] = x[i] + {n + 1}\n" for n in range(count)
    )
    text = textwrap.dedent(NUMBERED).replace("{kernels}", kernels)
    return write(tmp_path / "numbered.py", text)


@pytest.mark.cpu_only(FILE_HANDLING)
def test_least_recently_used_entries_go_first_past_the_size_cap(tmp_path):
    cache = tmp_path / "cache"
    script = numbered_script(tmp_path, 4)
    run(script, cache, "k0")
    size = entries(cache)[0].stat().st_size
    cap = {"TACK_CACHE_MAX_BYTES": str(int(size * 3.5))}

    result, events = run(script, cache, "k1", "k2", env=cap)
    assert result == [5, 6, 7, 8]
    assert len(entries(cache)) == 3
    # k0 is used again, so k1 is now the least recently used.
    result, events = run(script, cache, "k0", "k3", env=cap)
    assert events["k0"] == ["hit"]
    assert events["k3"] == ["miss", "stored", "evicted"]
    assert result == [5, 6, 7, 8]
    assert len(entries(cache)) == 3
    assert sum(e.stat().st_size for e in entries(cache)) <= int(size * 3.5)

    result, events = run(script, cache, "k0", "k1", "k2", "k3")
    assert events == {"k0": ["hit"], "k1": ["miss", "stored"], "k2": ["hit"], "k3": ["hit"]}
    assert result == [10, 11, 12, 13]


def test_processes_racing_to_fill_one_entry_both_succeed(backend, tmp_path):
    cache = tmp_path / "cache"
    go = tmp_path / "go"
    script = write(
        tmp_path / "race.py",
        f"""
        import json, os, time
        import numpy as np
        import tack

        @tack.kernel
        def saxpy(alpha, x, y):
            for i in range(len(x)):
                y[i] = alpha * x[i] + y[i]

        while not os.path.exists({str(go)!r}):
            time.sleep(0.001)
        x = tack.array(np.arange(1000, dtype=np.float32))
        y = tack.ones(1000)
        saxpy(3.0, x, y)
        print(json.dumps(y.numpy().tolist()))
        """,
    )
    racers = [start(script, cache) for _ in range(3)]
    time.sleep(0.3)
    go.touch()
    expected = (np.float32(3.0) * np.arange(1000, dtype=np.float32) + np.float32(1)).tolist()
    for racer in racers:
        result, events = finish(racer)
        assert result == expected
        assert events["saxpy"][-1] in ("stored", "hit")
    assert len(entries(cache)) == 1
    assert not [p for p in cache.rglob("*") if ".tmp." in p.name]
    result, events = run(script, cache)
    assert events["saxpy"] == ["hit"]
    assert result == expected


@pytest.mark.cpu_only(LLVM_INSPECTION)
def test_inspect_rebuilds_the_ir_of_a_cached_variant(tmp_path):
    cache = tmp_path / "cache"
    script = write(
        tmp_path / "inspected.py",
        """
        import json
        import numpy as np
        import tack

        @tack.kernel
        def double(x):
            for i in range(len(x)):
                x[i] = x[i] * 2

        x = tack.array(np.arange(3, dtype=np.float32))
        double(x)
        print(json.dumps({"x": x.numpy().tolist(), "llvm": double.inspect("llvm"), "ir": double.inspect("ir")}))
        """,
    )
    first, _ = run(script, cache)
    second, events = run(script, cache)
    assert events["double"] == ["hit"]
    assert second["x"] == first["x"] == [0.0, 2.0, 4.0]
    assert "define" in second["llvm"] and "# after infer_types" in second["ir"]


def test_the_cache_can_be_disabled(backend, tmp_path):
    cache = tmp_path / "cache"
    result, events = run(saxpy_script(tmp_path), cache, "float32", env={"TACK_DISABLE_DISK_CACHE": "1"})
    check_saxpy(result, "float32")
    assert events == {}
    assert not cache.exists()


@pytest.mark.cpu_only(FILE_HANDLING)
def test_cache_dir_and_clear_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TACK_CACHE_DIR", str(cache))
    assert tack.cache_dir() == str(cache)
    run(saxpy_script(tmp_path), cache, "float32")
    sizes = sum(e.stat().st_size for e in entries(cache))
    (cache / "unrelated.txt").write_text("kept")
    assert tack.clear_cache() == sizes
    assert entries(cache) == []
    assert (cache / "unrelated.txt").exists()
    assert tack.clear_cache() == 0

    monkeypatch.delenv("TACK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tack.cache_dir() == str(tmp_path / "xdg" / "tack")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert tack.cache_dir() == str(tmp_path / "home" / ".cache" / "tack")
