"""The disk cache against whatever else lies in or near its folder
(docs/caching.md, "Robustness"): a FIFO, a huge file or a folder in place
of an entry, a cache root shared with the user's own files, a malformed
size cap, an empty HOME, and closures of one kernel text.

Like test_disk_cache.py, each test runs kernels in fresh Python processes,
reads the cache's log lines (TACK_CACHE_LOG=1) to see hits and misses, and
checks results against NumPy. Every process runs under a timeout, so a
process that blocks fails the test instead of hanging it.
"""

import json
import os
import pwd
import resource
import stat
import subprocess
import sys
import uuid

import numpy as np
import pytest

import tack
from test_disk_cache import FILE_HANDLING, LOG_LINE, PYTHON_DIR, entries, numbered_script, write

TIMEOUT = 120


def launch(script, *args, env, cwd=None, memory_limit=None):
    """Runs `script` to its end (or fails the test at TIMEOUT); returns its
    last stdout line as JSON, its cache events by kernel, and its stderr."""
    limit = None
    if memory_limit:

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    try:
        done = subprocess.run(
            [sys.executable, str(script), *map(str, args)],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:  # run() has killed it
        pytest.fail(f"{script.name} did not finish within {TIMEOUT} s")
    assert done.returncode == 0, done.stderr
    events = {}
    for event, kernel in LOG_LINE.findall(done.stderr):
        events.setdefault(kernel, []).append(event)
    return json.loads(done.stdout.strip().splitlines()[-1]), events, done.stderr


def cache_env(cache, **extra):
    """The environment of a fresh process on this process's default device
    (the backend under test)."""
    environment = dict(os.environ, PYTHONPATH=PYTHON_DIR, TACK_CACHE_DIR=str(cache), TACK_CACHE_LOG="1",
                       TACK_DEVICE=tack.get_default_device())
    environment.pop("TACK_DISABLE_DISK_CACHE", None)
    environment.pop("TACK_CACHE_MAX_BYTES", None)
    environment.update(extra)
    return environment


def run(script, cache, *args, **extra):
    return launch(script, *args, env=cache_env(cache, **extra))


def numbered(count):
    """What numbered_script's kernels k0..k<count-1> leave in x = arange(4)."""
    return (np.arange(4) + sum(n + 1 for n in range(count))).tolist()


def only_entry(cache):
    (entry,) = entries(cache)
    return entry


# ---- A FIFO in place of an entry


@pytest.mark.cpu_only(FILE_HANDLING)
def test_a_fifo_in_place_of_an_entry_is_a_miss_and_is_left_alone(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    script = numbered_script(tmp_path, 1)
    run(script, cache, "k0")
    entry = only_entry(cache)
    entry.unlink()
    os.mkfifo(entry)
    # Opening a FIFO for reading blocks until a writer comes: the process
    # would never finish.
    result, events, _ = run(script, cache, "k0")
    assert events["k0"] == ["miss", "stored"]
    assert result == numbered(1)
    result, events, _ = run(script, cache, "k0")
    assert events["k0"] == ["hit"]
    assert result == numbered(1)
    assert stat.S_ISFIFO(os.lstat(entry).st_mode)

    monkeypatch.setenv("TACK_CACHE_DIR", str(cache))
    tack.clear_cache()
    assert stat.S_ISFIFO(os.lstat(entry).st_mode)


# ---- A huge file in place of an entry


@pytest.mark.parametrize("content", ["zeros", "extended-entry"])
@pytest.mark.cpu_only(FILE_HANDLING)
def test_a_huge_file_in_place_of_an_entry_is_not_read_into_memory(tmp_path, content):
    cache = tmp_path / "cache"
    script = numbered_script(tmp_path, 1)
    run(script, cache, "k0")
    entry = only_entry(cache)
    if content == "zeros":
        entry.write_bytes(b"")
    # A sparse file: 20 GiB long, next to nothing on disk. "extended-entry"
    # keeps the entry's own valid header in front.
    os.truncate(entry, 20 << 30)
    if entry.stat().st_blocks * 512 > 1 << 30:
        pytest.skip("this file system has no sparse files")
    # Reading the file whole would need 20 GiB; the limit makes that fail at
    # once instead of exhausting the machine.
    env = cache_env(cache)
    result, events, _ = launch(script, "k0", env=env, memory_limit=8 << 30)
    assert events["k0"] == ["corrupt", "stored"]
    assert result == numbered(1)
    assert entry.stat().st_size < 1 << 20
    result, events, _ = launch(script, "k0", env=env, memory_limit=8 << 30)
    assert events["k0"] == ["hit"]


# ---- A cache root shared with the user's files


@pytest.mark.cpu_only(FILE_HANDLING)
def test_clear_cache_and_eviction_delete_only_what_the_cache_wrote(tmp_path, monkeypatch):
    root = tmp_path / "shared"  # e.g. a home or project folder given as TACK_CACHE_DIR
    user_files = {
        root / "v1-notes" / "notes.txt": "my notes",
        root / "v1-notes" / "a.tk": "not a kernel",
        root / "v2-x" / "a.tk": "mine too",
        root / "v3-empty": None,
    }
    for path, text in user_files.items():
        if text is None:
            path.mkdir(parents=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    script = numbered_script(tmp_path, 3)
    run(script, root, "k0")
    (folder,) = [p for p in root.iterdir() if p.is_dir() and p.name not in ("v1-notes", "v2-x", "v3-empty")]
    # Files of the user's in Tack's own folder, one named like an entry.
    user_files[folder / "readme.tk"] = "kept"
    user_files[folder / ("0123456789abcdef" * 2 + ".tk")] = "named like an entry, but not one"
    for path in list(user_files)[-2:]:
        path.write_text(user_files[path])

    # A cap of one byte evicts every entry but the one just written.
    result, events, _ = run(script, root, "k1", "k2", TACK_CACHE_MAX_BYTES="1")
    assert result == (np.arange(4) + 2 + 3).tolist()
    assert "evicted" in events["k1"] + events["k2"]
    for path, text in user_files.items():
        assert path.is_dir() if text is None else path.read_text() == text
    tack_entries = [p for p in folder.glob("*.tk") if p not in user_files]
    assert len(tack_entries) == 1

    monkeypatch.setenv("TACK_CACHE_DIR", str(root))
    size = tack_entries[0].stat().st_size
    assert tack.clear_cache() == size
    assert not tack_entries[0].exists()
    for path, text in user_files.items():
        assert path.is_dir() if text is None else path.read_text() == text
    assert folder.is_dir()  # it still holds the user's files

    # Once only Tack's files are in it, the folder goes too.
    for path in list(user_files)[-2:]:
        path.unlink()
    tack.clear_cache()
    assert not folder.exists()
    assert (root / "v1-notes" / "notes.txt").exists() and (root / "v2-x" / "a.tk").exists()


# ---- A folder in place of an entry


@pytest.mark.cpu_only(FILE_HANDLING)
def test_a_folder_in_place_of_an_entry_is_kept_and_the_kernel_still_caches(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    script = numbered_script(tmp_path, 1)
    run(script, cache, "k0")
    entry = only_entry(cache)
    entry.unlink()
    entry.mkdir()
    (entry / "inside.txt").write_text("the user's")
    result, events, _ = run(script, cache, "k0")
    assert events["k0"] == ["miss", "stored"]
    assert result == numbered(1)
    result, events, _ = run(script, cache, "k0")
    assert events["k0"] == ["hit"]
    assert result == numbered(1)
    monkeypatch.setenv("TACK_CACHE_DIR", str(cache))
    tack.clear_cache()
    assert (entry / "inside.txt").read_text() == "the user's"


# ---- TACK_CACHE_MAX_BYTES values


@pytest.mark.parametrize("value", ["0", "1", "1k", "1K"])
@pytest.mark.cpu_only(FILE_HANDLING)
def test_a_cap_below_one_entry_keeps_only_the_newest(tmp_path, value):
    cache = tmp_path / "cache"
    script = numbered_script(tmp_path, 3)
    run(script, cache, "k0")
    assert only_entry(cache).stat().st_size > 1024  # so that even "1K" holds less than one entry
    result, events, stderr = run(script, cache, "k1", "k2", TACK_CACHE_MAX_BYTES=value)
    assert result == (np.arange(4) + 2 + 3).tolist()
    assert "TACK_CACHE_MAX_BYTES" not in stderr
    assert len(entries(cache)) == 1


@pytest.mark.parametrize("value", ["1M", "1g", "268435456"])
@pytest.mark.cpu_only(FILE_HANDLING)
def test_a_cap_above_the_entries_keeps_them_all(tmp_path, value):
    cache = tmp_path / "cache"
    script = numbered_script(tmp_path, 3)
    result, events, stderr = run(script, cache, "k0", "k1", "k2", TACK_CACHE_MAX_BYTES=value)
    assert result == numbered(3)
    assert "TACK_CACHE_MAX_BYTES" not in stderr
    assert len(entries(cache)) == 3


@pytest.mark.parametrize("value", ["abc", "10MB", "-1", "1.5M", " 5", "99999999999999999999", "20000000000G"])
@pytest.mark.cpu_only(FILE_HANDLING)
def test_a_malformed_cap_is_warned_about_once_and_the_default_is_used(tmp_path, value):
    cache = tmp_path / "cache"
    script = numbered_script(tmp_path, 3)
    result, events, stderr = run(script, cache, "k0", "k1", "k2", TACK_CACHE_MAX_BYTES=value)
    assert result == numbered(3)
    warnings = [line for line in stderr.splitlines() if "TACK_CACHE_MAX_BYTES" in line]
    assert len(warnings) == 1, stderr  # three stores, one warning
    assert repr(value) in warnings[0] and str(256 << 20) in warnings[0]
    assert len(entries(cache)) == 3  # nothing evicted: the default is far above three entries


# ---- An empty HOME


@pytest.mark.cpu_only(FILE_HANDLING)
def test_an_empty_home_gives_the_same_absolute_folder_to_python_and_the_runtime(tmp_path):
    # Without TACK_CACHE_DIR and XDG_CACHE_HOME, an empty HOME sends both to
    # the password database's home. This test writes one entry there (a
    # kernel of its own, found by a unique name it records) and deletes it,
    # and the folders it created.
    try:
        home = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        home = None
    expected = os.path.join(home, ".cache", "tack") if home and os.path.isabs(home) else None
    token = uuid.uuid4().hex
    script = write(
        tmp_path / "empty_home.py",
        f"""
        import json
        import numpy as np
        import tack

        # The entry records this name: the test finds its entry by it.
        SCALE_{token} = tack.constant(3)

        @tack.kernel
        def empty_home_{token}(x):
            for i in range(len(x)):
                x[i] = x[i] * SCALE_{token}

        x = tack.array(np.arange(5, dtype=np.int64))
        empty_home_{token}(x)
        print(json.dumps({{"x": x.numpy().tolist(), "cache_dir": tack.cache_dir()}}))
        """,
    )
    env = cache_env(tmp_path, HOME="")
    del env["TACK_CACHE_DIR"]
    env.pop("XDG_CACHE_HOME", None)
    # That folder is the machine's own, perhaps filled to the size cap by
    # earlier runs: no store of this test's may evict another's entries.
    env["TACK_CACHE_MAX_BYTES"] = "1024G"
    work = tmp_path / "work"
    work.mkdir()

    before = _files_under(expected)
    try:
        result, events, _ = launch(script, env=env, cwd=work)
        ours = [p for p in _files_under(expected) - before if p.endswith(".tk") and _holds(p, token)]
    finally:
        _remove_new(expected, before, token)
    assert result["x"] == (np.arange(5) * 3).tolist()
    assert result["cache_dir"] == expected
    assert list(work.iterdir()) == []  # nothing relative to the working folder
    if expected is None:
        assert events == {}
    elif events[f"empty_home_{token}"] == ["miss", "stored"]:
        # The runtime wrote exactly one entry, in a version folder of the folder Python names.
        (entry,) = ours
        assert os.path.dirname(os.path.dirname(entry)) == expected
    else:  # that home is not writable here
        assert events[f"empty_home_{token}"] == ["miss", "unwritable"]


def _files_under(root):
    """Every folder and file under `root`, and the folders above it up to the home."""
    if not root:
        return set()
    found = {p for p in (os.path.dirname(root), root) if os.path.exists(p)}
    for folder, subfolders, files in os.walk(root):
        found.update(os.path.join(folder, name) for name in subfolders + files)
    return found


def _holds(path, token):
    try:
        with open(path, "rb") as f:
            return token.encode() in f.read()
    except OSError:
        return False


def _remove_new(root, before, token):
    """Removes this test's entry and whatever folders (with their marker)
    appeared for it, deepest first; other processes' new entries stay."""
    for path in sorted(_files_under(root) - before, key=len, reverse=True):
        if path.endswith(".tk"):
            if _holds(path, token):
                os.unlink(path)
        elif os.path.isdir(path) and not os.path.islink(path):
            left = os.listdir(path)
            if left == ["CACHEDIR.TAG"] and os.path.join(path, left[0]) not in before:
                os.unlink(os.path.join(path, left[0]))
            try:
                os.rmdir(path)
            except OSError:  # someone else's entries are in it now
                pass


# ---- Closures of one kernel text


CLOSURES = """
    import json, sys
    import numpy as np
    import tack

    @tack.func
    def twice(v):
        return v * 2

    @tack.func
    def thrice(v):
        return v * 3

    def make(k, helper):
        # Every closure has the same text; K and helper differ.
        K = tack.constant(k)

        @tack.func
        def bump(v):
            return helper(v) + K

        @tack.kernel
        def scaled(a):
            for i in range(len(a)):
                a[i] = bump(a[i]) * K

        return scaled

    kernels = {"1-twice": make(1, twice), "2-twice": make(2, twice), "1-thrice": make(1, thrice)}
    out = {}
    for name in sys.argv[1:]:
        a = tack.array(np.arange(5, dtype=np.int32))
        kernels[name](a)
        out[name] = a.numpy().tolist()
    print(json.dumps(out))
"""


def closures_oracle(name):
    k, helper = name.split("-")
    a = np.arange(5, dtype=np.int32)
    return ((a * {"twice": 2, "thrice": 3}[helper] + int(k)) * int(k)).tolist()


def test_closures_of_one_kernel_text_each_keep_an_entry(backend, tmp_path):
    cache = tmp_path / "cache"
    script = write(tmp_path / "closures.py", CLOSURES)
    names = ["1-twice", "2-twice", "1-thrice"]
    result, events, _ = run(script, cache, *names)
    assert events["scaled"].count("stored") == 3
    assert result == {name: closures_oracle(name) for name in names}
    for order in (names, names[::-1], names[1:2]):
        result, events, _ = run(script, cache, *order)
        assert events["scaled"] == ["hit"] * len(order)
        assert result == {name: closures_oracle(name) for name in order}
