"""The disk cache of compiled kernels: where it lives, and clearing it.

The runtime (src/runtime/disk_cache.cpp) reads and writes the entries; the
root folder rule below is the same as its disk_cache_root(). See
docs/caching.md.
"""

import os
import re
import shutil

# One subfolder per entry format, Tack version and LLVM version: "v1-0.1.0-llvm19".
_VERSION_FOLDER = re.compile(r"v\d+-")


def cache_dir():
    """The folder that holds Tack's disk cache: $TACK_CACHE_DIR, else
    $XDG_CACHE_HOME/tack, else ~/.cache/tack. Entries live in one subfolder
    per cache format, Tack version and LLVM version."""
    root = os.environ.get("TACK_CACHE_DIR")
    if root:
        return root
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "tack")
    return os.path.join(os.path.expanduser("~"), ".cache", "tack")


def clear_cache():
    """Deletes every compiled kernel in the disk cache (of every Tack version).
    Kernels already loaded keep running; other processes recompile what they
    need. Returns the number of bytes freed."""
    root = cache_dir()
    freed = 0
    try:
        folders = os.listdir(root)
    except FileNotFoundError:
        return 0
    for name in folders:
        folder = os.path.join(root, name)
        if not _VERSION_FOLDER.match(name) or not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            try:
                freed += entry.stat().st_size
            except FileNotFoundError:  # evicted or replaced by another process meanwhile
                pass
        shutil.rmtree(folder, ignore_errors=True)
    return freed
