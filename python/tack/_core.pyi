"""Tack's compiler and runtime"""

from collections.abc import Sequence
from typing import Annotated, Any

from numpy.typing import NDArray

from tack._dtypes import DType
from tack._element_types import ElementType, ElementTypeLike


def _set_exception_types(arg: dict, /) -> None: ...

def available_devices() -> list[str]:
    """The backends that start on this machine, CPU first."""

def known_devices() -> list[str]:
    """Every backend name this build knows."""

def set_default_device(arg: str, /) -> None: ...

def default_device() -> str: ...

def device_unavailable_reason(arg: str, /) -> str: ...

def _build_identity() -> str:
    """
    Tack's version and this build's identity, which keys what Tack keeps on disk.
    """

def target_description(arg: str, /) -> str:
    """
    What a device's compiled code depends on besides its IR: for the CPU, LLVM's target triple, CPU and features.
    """

def set_num_threads(arg: int, /) -> None:
    """
    Threads the CPU backend's launches run on from now on (the calling thread among them).
    """

def get_num_threads() -> int:
    """Threads the CPU backend's launches run on."""

def _last_launch_threads() -> int:
    """How many threads ran a part of the most recent divided CPU launch."""

def sync() -> None: ...

def _set_dtypes(arg: list, /) -> None: ...

def _set_element_type_factory(arg: object, /) -> None: ...

def array_from_ptr(address: int, shape: object, dtype: object, strides: object | None = None, readonly: bool = True, owner: object | None = None, device: str = 'cpu', stream: object | None = None) -> Array:
    """
    An array viewing external memory at `address` (no copy): host memory, or device memory of 'cuda' or 'hip'. Strides are in bytes, row-major when omitted. The caller keeps the memory alive, or passes `owner`, an object the array keeps referenced.
    """

def from_dlpack(obj: object) -> Array:
    """
    An array sharing the memory of any object with __dlpack__ (no copy), on the host or on a CUDA or ROCm device; read-only when the producer marks it so.
    """

def _array_sum(arg: Array, /) -> float: ...

def _array_min(arg: Array, /) -> float: ...

def _array_max(arg: Array, /) -> float: ...

def _worker_count() -> int:
    """Threads the CPU runtime's parallel loops use."""

class Array:
    """
    Typed, shaped storage on a device. Create arrays with tack.zeros, tack.array and friends.
    """

    @staticmethod
    def _empty(arg0: object, arg1: object, arg2: Sequence[int], arg3: str, arg4: str, /) -> Array: ...

    @staticmethod
    def _copy_of(arg0: Annotated[NDArray, dict(order='C', writable=False)], arg1: str, /) -> Array: ...

    @property
    def shape(self) -> tuple[int, ...]:
        """(self) -> tuple"""

    @property
    def dtype(self) -> DType | ElementType:
        """
        The element type: a scalar dtype, or a vector or matrix type such as tack.vec3f.
        """

    @property
    def element_shape(self) -> tuple[int, ...]:
        """
        () for numbers, (n,) for vector elements, (rows, cols) for matrix elements.
        """

    @property
    def layout(self) -> str:
        """"aos" (interleaved components) or "soa" (a structure of arrays)."""

    @property
    def ndim(self) -> int: ...

    @property
    def size(self) -> int: ...

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides, as NumPy reports them."""

    @property
    def _element_strides(self) -> list[int]:
        """Strides in elements, a list (tack.tile's views)."""

    @property
    def is_contiguous(self) -> bool: ...

    @property
    def readonly(self) -> bool: ...

    @property
    def device(self) -> str:
        """The backend the array belongs to: "cpu", "opencl"."""

    @property
    def ptr(self) -> int:
        """
        The address of the first element: the device address of an array on 'cuda' or 'hip' (what __cuda_array_interface__ and DLPack give), otherwise host memory (on 'opencl', the host copy, after the queued launches that write it).
        """

    @property
    def _address(self) -> int:
        """
        Where the first element lies, for tests of overlap between arrays of one device: ptr's address without its effects.
        """

    def __len__(self) -> int: ...

    def __getitem__(self, key: object | None) -> object: ...

    def __setitem__(self, arg0: object, arg1: object, /) -> None: ...

    def reshape(self, *args) -> Array: ...

    def transpose(self, *args) -> Array:
        """
        A view with the dimensions permuted as NumPy's transpose does: reversed without arguments, else dimension d of the view is axes[d] (given as one sequence or as arguments).
        """

    @property
    def T(self) -> Array:
        """The view with the dimensions reversed (transpose())."""

    def fill(self, value: object) -> None:
        """Sets every element to value."""

    def numpy(self) -> NDArray[Any]:
        """
        A NumPy array viewing the same memory (no copy); vector and matrix elements add their own dimensions after the array's.
        """

    def __dlpack__(self, stream: object | None = None, *, max_version: object | None = None, dl_device: object | None = None, copy: object | None = None) -> object:
        """
        A DLPack capsule sharing this array's memory; read-only arrays are flagged so.
        """

    def __dlpack_device__(self) -> tuple:
        """
        (kDLCUDA, 0) or (kDLROCM, 0) for an array on 'cuda' or 'hip', (kDLCPU, 0) for the others.
        """

    @property
    def __cuda_array_interface__(self) -> dict:
        """
        The array's device memory (version 3), on 'cuda' and 'hip'; naming it shares the memory: NumPy views become read-only snapshots and host reads fetch the device's bytes.
        """

    def _host_view(self) -> NDArray[Any]:
        """
        copyto's writable NumPy view; call _host_written() after writing through it.
        """

    def _host_written(self) -> None: ...

    @property
    def __array_interface__(self) -> dict: ...

    def __repr__(self) -> str: ...

    def copy(self) -> Array:
        """
        A new array with this one's contents, element type, layout and
        device, in storage of its own (a view copies only what it views).
        """

    def astype(self, dtype: ElementTypeLike) -> Array:
        """
        A new array (same device, shape and layout) with every component
        converted to `dtype` as NumPy's astype converts it (casting="unsafe"):
        integers wrap modulo 2**bits, floats round to nearest (f64 values beyond
        f32's range become infinities), floats truncate toward zero into
        integers. A float with no integer value of the target type (NaN, an
        infinity, or out of range after truncation), where NumPy's result
        depends on the platform, raises ValueError instead. An array of vectors
        or matrices keeps its element shape: `dtype` is the component type, or
        an element type of the same shape.
        """

    def __bool__(self) -> bool:
        """
        Truth as NumPy's: an array of one number is that number's truth;
        any other array (empty, of several numbers, of vector or matrix
        elements) raises ValueError, where `if a:` would otherwise ask whether
        it is empty.
        """

    def __reduce__(self) -> tuple[object, tuple[object, ...]]: ...

    def sum(self) -> float:
        """
        The sum of every element as a Python float: f32 accumulates in f32,
        f64 in f64, signed integers in i64 and unsigned in u64, wrapping modulo
        2**64. An empty array sums to 0.0.
        """

    def min(self) -> float:
        """
        The least element as a Python float. NaN if any element is NaN;
        -0.0 wins a tie with +0.0. Raises ValueError for an empty array.
        """

    def max(self) -> float:
        """
        The greatest element as a Python float. NaN if any element is NaN;
        +0.0 wins a tie with -0.0. Raises ValueError for an empty array.
        """

    def mean(self) -> float:
        """
        sum() divided by the element count in binary64 (integer means inherit
        the sum's wrapping); NaN for an empty array.
        """

class Texture3D:
    """
    A 3D texture: an f32 snapshot of an array's W*H*D elements, x fastest, sampled in kernels with tex.sample(u, v, w). Make one with tack.texture3d.
    """

    def __init__(self, array: Array, width: int, height: int, depth: int) -> None: ...

    def update(self) -> None:
        """
        Copies the array again; sampling afterwards sees its data as of this call.
        """

    @property
    def shape(self) -> tuple:
        """(W, H, D)."""

    @property
    def array(self) -> Array:
        """The array the texture copies."""

    def __repr__(self) -> str: ...

def set_debug(arg: bool, /) -> None:
    """Compile bounds-checked variants from now on (or stop)."""

def debug_enabled() -> bool: ...

def set_debug_races(arg: bool, /) -> None:
    """
    Compile debug variants with the race detector from now on (or without).
    """

def debug_races_enabled() -> bool: ...

def set_cpu_lanes(arg: str, /) -> None:
    """
    SPMD CPU variants from now on: where the lanes pay, always where the kernel allows, or never.
    """

def cpu_lanes() -> str: ...

class Kernel:
    def __init__(self, arg0: str, arg1: object, arg2: object, arg3: int, arg4: int, arg5: object, /) -> None: ...

    def __call__(self, *args, **kwargs) -> object: ...

    def inspect(self, arg0: str, /, *args, **kwargs) -> str:
        """
        The IR after each pass ("ir") or the optimized LLVM IR ("llvm") of the variant the given arguments select (or of the last compiled one).
        """

    @property
    def compiled_variants(self) -> int:
        """How many specializations of this kernel have been compiled."""

    @property
    def name(self) -> str: ...

    def __get__(self, obj: object | None, owner: object | None = None) -> object: ...

    def __repr__(self) -> str: ...

    def __reduce__(self) -> tuple[object, tuple[object, ...]]: ...

def _reraise() -> None: ...

class TileKernel:
    """A kernel of the reference tile library, as TileIR."""

    @property
    def name(self) -> str: ...

    def __str__(self) -> str:
        """The kernel in TileIR's text form."""

def tile_parse(text: str) -> TileKernel:
    """A tile kernel from TileIR's text form (docs/tile/ir.md), verified."""

class CompiledTileKernel:
    """A tile kernel compiled for one device."""

    @property
    def name(self) -> str: ...

    @property
    def device(self) -> str: ...

    def launch(self, args: Sequence[object]) -> None:
        """
        Runs once over its arguments, one per parameter: a tack.Array, seen whole, or an (array, shape, element strides, element offset, writes) view of an array's storage.
        """

def tile_compile(kernel: TileKernel, device: str, simd_lanes: bool = True, overlap_stages: bool = False, mma_block: tuple[int, int] = (0, 0), workgroups: str = 'fill', nest_split: Sequence[int] = [], nest_order: Sequence[int] = [], nest_fuse: Sequence[int] = []) -> CompiledTileKernel:
    """
    Compiles a tile kernel for a device; simd_lanes=False runs the CPU's iterations one at a time, overlap_stages=True overlaps pipeline stages across iterations where that is legal, mma_block=(rows, cols) sets mma's register block ((0, 0): the device's), workgroups ('fill', 'always', 'never') where a GPU backend runs an iteration in a workgroup; nest_split=[factor per level] splits the parallel nest's levels into outer and inner parts, nest_order=[parts, outermost first] orders the launch's dimensions over them and nest_fuse=[counts] fuses consecutive dimensions, where the layout prover proves the binding a bijection (tack/tile/compile.h).
    """

def tile_lowered_ir(kernel: TileKernel, workgroups: bool = False, overlap_stages: bool = False, nest_split: Sequence[int] = [], nest_order: Sequence[int] = [], nest_fuse: Sequence[int] = []) -> str:
    """
    The kernel IR a tile kernel lowers to, as text: for the CPU, or with workgroups=True for the GPU backends' workgroups wherever they can take it; the first comment lines say how it runs and how its parallel nest binds to the launch.
    """

def _tile_may_overlap_itself(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """
    Whether two elements of a view of these extents and element strides may share memory.
    """

def _tile_clashes(outs: Sequence[object], ins: Sequence[object]) -> list[bool]:
    """
    For each of outs, whether it overlaps one of ins, another of outs or itself (the whole arrays).
    """

def tile_interpret(kernel: TileKernel, args: Sequence[tuple[Array, Sequence[int], Sequence[int], int, bool]], scalar_trees: bool = False) -> None:
    """
    Runs a tile kernel in the TileIR interpreter over the views launch takes: the correctness oracle. scalar_trees: unordered reductions of scalars merge as the ordered tree, the grouping of kernels compiled in workgroups.
    """

def tile_matmul(tile_m: int, tile_n: int, tile_k: int, panel_lanes: int = 0, batched: bool = False, shared_b: bool = False) -> TileKernel: ...

def tile_pack_panels(tile_n: int, lanes: int, batched: bool = False) -> TileKernel: ...

def tile_einsum(spec: str, ranks: Sequence[int]) -> TileKernel: ...

def tile_conv2d(padding: int, width: int = 32, filters: int = 1) -> TileKernel: ...

def tile_conv2d_columns(kernel: tuple[int, int], padding: tuple[int, int] = (0, 0), stride: tuple[int, int] = (1, 1), dilation: tuple[int, int] = (1, 1), width: int = 32) -> TileKernel:
    """
    conv2d's windows as a matrix per image (im2col): kernel=(KH, KW), padding, stride and dilation as (rows, columns).
    """

def tile_softmax(width: int = 32) -> TileKernel: ...

def tile_layer_norm(eps: float, width: int = 32) -> TileKernel: ...

def tile_rms_norm(eps: float, width: int = 32) -> TileKernel: ...

def tile_topk(k: int, width: int = 0) -> TileKernel: ...

def tile_sort() -> TileKernel: ...

def tile_sort_runs(run: int, descending: bool = False) -> TileKernel: ...

def tile_sort_runs_bitonic(run: int, descending: bool = False) -> TileKernel: ...

def tile_merge_runs() -> TileKernel: ...

def tile_merge_path(block: int, descending: bool = False, keep: int = 0) -> TileKernel: ...

def tile_topk_first() -> TileKernel: ...

def tile_topk_threshold(rank: int, width: int = 16) -> TileKernel: ...

def tile_topk_compact() -> TileKernel: ...

def tile_topk_columns() -> TileKernel: ...

def tile_scan(exclusive: bool) -> TileKernel: ...

def tile_gather_rows(width: int = 32) -> TileKernel: ...

def tile_scatter_rows(width: int = 32) -> TileKernel: ...
