"""The disk cache of compiled kernels: where it lives, and clearing it.

The driver (src/driver/disk_cache.cpp) reads and writes the entries; the
root folder rule and the marks of Tack's own files below are the same as
disk_cache_root(), marked() and tacks_entry() in src/driver/cache_folder.cpp.
See docs/caching.md.
"""

import os
import pwd
import re
import stat
import sys
from typing import Optional

# One subfolder per entry format, Tack version and LLVM version: "v2-0.1.0-llvm19".
_VERSION_FOLDER = re.compile(r"v(\d+)-")
# The marker a version folder carries when Tack made it; only marked folders are cleared.
_MARKER = "CACHEDIR.TAG"
_MARKER_HEAD = "Signature: 8a477f597d28d172789f06886806bc55\n# Tack disk cache, entry format {}\n"
# "<32 hex digits>.tk", "<32 hex digits>-<n>.tk", and their temporaries while being written.
_ENTRY = re.compile(r"([0-9a-f]{32})(?:-\d+)?\.tk")
_TEMPORARY = re.compile(r"\.[0-9a-f]{32}(?:-\d+)?(?:\.tk)?\.tmp\..+")
# An entry's header starts with the magic and the format, and ends with the key.
_MAGIC = b"TACKVAR\n"
_HEADER_SIZE = 48


def cache_dir() -> Optional[str]:
    """The folder that holds Tack's disk cache: $TACK_CACHE_DIR, else the
    first absolute one of $XDG_CACHE_HOME/tack, $HOME/.cache/tack and the
    password database's home/.cache/tack (an empty or relative variable is
    skipped). None when there is none, and the cache is off. Entries live in
    one subfolder per cache format, Tack version and LLVM version."""
    root = os.environ.get("TACK_CACHE_DIR")
    if root:
        return root
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, "tack")
    home = os.environ.get("HOME", "")
    if not os.path.isabs(home):
        try:
            home = pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            return None
        if not os.path.isabs(home):
            return None
    return os.path.join(home, ".cache", "tack")


def _head(path, size, follow=False):
    """The first `size` bytes of a regular file (fewer if it is shorter);
    None for anything else. Never blocks on a FIFO; follows a link only if
    told (an entry's name held by a link is not Tack's entry)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = b""
        while len(data) < size:
            chunk = os.read(fd, size - len(data))
            if not chunk:
                break
            data += chunk
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def _is_marked(folder, entry_format):
    head = _MARKER_HEAD.format(entry_format).encode()
    return _head(os.path.join(folder, _MARKER), len(head), follow=True) == head


def _is_tacks(path, name, entry_format):
    """Whether the cache wrote this file: an entry by its name and header, or
    a temporary by its name and the start of its header."""
    entry = _ENTRY.fullmatch(name)
    if entry:
        head = _head(path, _HEADER_SIZE)
        return (
            head is not None
            and len(head) == _HEADER_SIZE
            and head[: len(_MAGIC)] == _MAGIC
            and int.from_bytes(head[8:12], sys.byteorder) == entry_format
            and head[_HEADER_SIZE - 16 :].hex() == entry.group(1)
        )
    if _TEMPORARY.fullmatch(name):
        head = _head(path, len(_MAGIC))
        return head is not None and _MAGIC.startswith(head)
    return False


def clear_cache() -> int:
    """Deletes every compiled kernel in the disk cache (of every Tack version).
    Only folders carrying Tack's marker are touched, and in them only files
    Tack wrote; a folder goes only when nothing else is left in it. Kernels
    already loaded keep running; other processes recompile what they need.
    Returns the number of bytes freed."""
    root = cache_dir()
    if root is None:
        return 0
    try:
        folders = os.listdir(root)
    except OSError:
        return 0
    freed = 0
    for name in folders:
        version = _VERSION_FOLDER.match(name)
        folder = os.path.join(root, name)
        if not version or not _is_marked(folder, int(version.group(1))):
            continue
        kept = False
        try:
            files = list(os.scandir(folder))
        except OSError:
            continue
        for entry in files:
            if entry.name == _MARKER:
                continue
            if not _is_tacks(entry.path, entry.name, int(version.group(1))):
                kept = True
                continue
            try:
                size = entry.stat(follow_symlinks=False).st_size
                os.unlink(entry.path)
                freed += size
            except FileNotFoundError:  # evicted or replaced by another process meanwhile
                pass
        if not kept:
            # Only the marker is left: the folder is Tack's alone. A process
            # storing meanwhile keeps it (and marks it again).
            try:
                os.unlink(os.path.join(folder, _MARKER))
                os.rmdir(folder)
            except OSError:
                pass
    return freed + _clear_tuning(root)


# The autotuning winners' files (tack/_tile_tuning.py): 32 hex digits and
# ".json", nothing else.
_TUNING_FILE = re.compile(r"[0-9a-f]{32}\.json")


def _clear_tuning(root) -> int:
    folder = os.path.join(root, "tile-tuning")
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    freed = 0
    for entry in entries:
        if not _TUNING_FILE.fullmatch(entry.name) or not entry.is_file(follow_symlinks=False):
            continue
        try:
            size = entry.stat(follow_symlinks=False).st_size
            os.unlink(entry.path)
            freed += size
        except FileNotFoundError:
            pass
    try:
        os.rmdir(folder)  # only when nothing else is in it
    except OSError:
        pass
    return freed
