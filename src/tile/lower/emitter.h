// Pass 3 of lowering TileIR to Tack's kernel IR: emit the kernel IR.
//
// Shared state of the emitter, whose parts live one concern per file:
//   emitter.cpp            storage, expression helpers, blocks, the launch
//   emit_binding.cpp       the launch's dimensions from the nest's binding
//   emit_elementwise.cpp   const, iota, lifted ops, cast, broadcast, reshape,
//                          extract; the element arithmetic
//   emit_mma.cpp           mma: register blocks, operands read in place
//   emit_memory.cpp        dim, view, load, store
//   emit_regions.cpp       inner parallel, serial, pipeline (in order or
//                          overlapped: pipeline_schedule.h)
//   emit_reduce.cpp        reduce under its policy, merges
//   fusion.cpp             each element-by-element operation's element,
//                          computed where it is read or written to its tile
//   barriers.cpp           where workgroup code needs barriers; emit_op
//
// Representation. A rank-0 tile is a kernel IR local (a scalar); a tile of
// higher rank is a kernel IR local array (private scratch of the tile's
// static shape, row-major) and every operation on it is a loop nest over its
// elements. A view is not a value at run time: it is a record of, per axis
// of the parameter it reaches, the coordinate expression and the bounds an
// element must lie in, and load/store turn it into guarded array accesses.
// i1 tiles are i32 0/1; i1 memory is one byte (u8) per element.
//
// Workgroups (LoweringTarget::workgroup_lanes > 0: the GPU backends). The launch
// gains an innermost dimension of one group's lanes, so each iteration of
// the parallel nest runs in one workgroup. Tiles are the group's shared
// arrays; every loop over a tile's elements runs element e on lane
// e % lanes (mma: its register blocks, spread the same way); scalars are
// computed alike by every lane; a rank-0 store is made by lane 0. A barrier
// separates two operations wherever one writes what the other touches
// across lanes (barriers.cpp); within one operation each lane writes only
// its own elements. Every barrier stands in region loops and uniform
// tests, which the participation proof (analysis/uniformity.h) checks on
// the result; where it cannot, or the tiles pass the shared budget,
// lower.cpp lowers one iteration per lane. A tree policy's reduce of
// scalars over a constant domain merges over the lanes (emit_reduce.cpp).
// A parallel region bound to exec::thread runs its iteration i on lane
// i % lanes, apart: tiles private to the lane, element loops sequential,
// stores by the lane itself, no barrier inside; one barrier after it.
// A tile no lane but an element's own ever touches lives in the lanes'
// registers instead of shared memory (lane_tiles.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"
#include "tack/tile/ir.h"
#include "tack/tile/printer.h"
#include "tack/tile/view_layout.h"
#include "tile/lower/exec_binding.h"
#include "tile/lower/lane_tiles.h"
#include "tile/lower/launch_nest.h"
#include "tile/lower/lower.h"
#include "tile/lower/mma_atom.h"
#include "tile/lower/pipeline_schedule.h"

namespace tack::tile::lower {

// A tile computed where it is read (fusion.cpp): `element` gives the
// expression of its element at an index, emitting the locals it needs
// where it is read.
struct Deferred {
  std::function<ir::ExprPtr(std::vector<ir::ExprPtr>)> element;
  std::vector<int> arrays;  // the local arrays its elements read
  bool computes = false;    // it does arithmetic (not only an index remap of memory)
  bool pins = false;        // its arrays are held from reuse until it is dead
};

// Where a tile lives: a scalar local, or a local array (optionally one slot
// of an array with a leading `prefix` index, the ordered tree's stack), or
// nowhere: a constant tile of rank > 0 reads as its value, a deferred one
// computes each element where it is read, and nothing writes either.
struct Storage {
  Type type;
  int var = -1;
  int array = -1;
  int prefix = -1;  // a local holding the leading index, or -1
  // In workgroups, a tile in the lanes' registers (lane_tiles.h) of more
  // elements than lanes: `array` holds this lane's elements, element e at
  // e / lanes, read and written only at the element loop's slot. One of
  // at most as many elements as lanes is a local (`var`).
  bool lane_slots = false;
  bool constant = false;
  std::shared_ptr<const Deferred> deferred = nullptr;
  double number = 0;    // a floating-point constant's value
  int64_t integer = 0;  // an integer (i1: 0 or 1) constant's value
};

// A term of index arithmetic: a local, a constant, or an array parameter's extent.
struct Term {
  enum class Kind { var, constant, extent } kind = Kind::constant;
  int var = -1;
  int64_t value = 0;
  int array = -1, axis = 0;
  static Term local(int v) { return {Kind::var, v, 0, -1, 0}; }
  static Term constant(int64_t c) { return {Kind::constant, -1, c, -1, 0}; }
  static Term extent(int a, int d) { return {Kind::extent, -1, 0, a, d}; }
};

// 0 <= position + shift < bound
struct Bound {
  Term shift, bound;
};

// A view: its layout (tack/tile/view_layout.h), whose modes' strides name
// the parameter axis each view axis walks; its translation as one local per
// parameter axis (the sum of the coordinates whose stride is that axis's);
// per view axis the bounds a position must satisfy; scalar conditions (i32
// locals) from dropped axes.
struct ViewInfo {
  int array = -1;  // the kernel IR array parameter
  Scalar elem = Scalar::f32;
  ViewLayout layout;
  std::vector<int64_t> extents;  // per view axis, its type's; kDynamic for a parameter
  std::vector<Term> origin;      // per parameter axis
  std::vector<std::vector<Bound>> bounds;  // per view axis (a window's own extent is implied)
  std::vector<int> conditions;   // i32 locals that must all be nonzero
  // Per condition, a local that is nonzero only where the condition holds
  // for every index of the loop that gives the coordinate (the index of a
  // region with a constant extent: its whole range is known), and that
  // does not move with the lanes; -1 where there is none.
  std::vector<int> condition_for_all;
};

// A vector of expressions (initializer lists cannot move unique pointers).
template <class... E>
std::vector<ir::ExprPtr> exprs(E&&... e) {
  std::vector<ir::ExprPtr> v;
  (v.push_back(std::forward<E>(e)), ...);
  return v;
}

// Thrown where a kernel's tiles do not fit a workgroup's shared memory.
struct NoWorkgroupFit {
  std::string why;
};

class Emitter {
 public:
  Emitter(const Kernel& kernel, const CompileOptions& options, const LoweringTarget& target = {});
  std::unique_ptr<ir::Kernel> run(const LaunchNest& nest, const ExecBinding& binding);
  // Comment lines on choices the emitter made (mma's register blocks), one
  // per operation, for the plan.
  const std::string& notes() const { return notes_; }

  // --- emitter.cpp -----------------------------------------------------------
  [[noreturn]] void refuse(const Operation& op, const std::string& why) const;
  void note(const std::string& line);
  DType value_dtype(Scalar s) const;
  int new_var(const std::string& name, ir::VarRole role = ir::VarRole::Temp);
  // Whether `e` may differ between consecutive iterations of the launch's
  // innermost dimension (SIMD lanes, GPU threads): it reads memory or a
  // local assigned from such a value. Flow-insensitive and conservative;
  // it chooses between equivalent codes, never a result.
  bool varying(const ir::Expr& e) const;
  void mark_varying(int var);
  // Refuses `op` naming `what` when the array would pass the 64 KiB cap.
  // In workgroups the array is the group's unless `per_lane` (scalars'
  // buffers), and throws NoWorkgroupFit past the shared budget.
  int new_array(const Operation* op, Scalar elem, std::vector<int64_t> shape, const char* what = "a tile",
                bool per_lane = false);
  Storage new_storage(const Operation* op, const Type& t);
  // The storage of a value of type `t` that is `constant`'s value
  // everywhere: no array or local, every read is the value.
  static Storage constant_storage(const Type& t, const Operation& constant);
  // The storage of an op result: a local, or a local array, reused from an
  // earlier tile of the same block nest that is dead (tile_reuse below).
  Storage& define(const Value* v);
  const Storage& storage(const Value* v) const;
  int scalar_var(const Value* v) const;   // a rank-0 value's local
  Term term_of(const Value* v) const;     // a rank-0 i64 value as a term

  ir::ExprPtr ref(int var) const;
  ir::ExprPtr i64(int64_t v) const;
  ir::ExprPtr int_const(DType t, int64_t v) const;
  ir::ExprPtr float_const(DType t, double v) const;
  ir::ExprPtr zero_of(Scalar s) const;  // 0 in s's value type
  ir::ExprPtr term(const Term& t) const;
  ir::ExprPtr add(ir::ExprPtr a, ir::ExprPtr b) const;
  ir::ExprPtr all_of(std::vector<ir::ExprPtr> conds) const;  // null when empty
  std::vector<ir::ExprPtr> refs(const std::vector<int>& vars) const;

  // Element idx of a tile; a deferred tile emits the locals its element needs.
  ir::ExprPtr read(const Storage& s, std::vector<ir::ExprPtr> idx);
  void write(const Storage& s, std::vector<ir::ExprPtr> idx, ir::ExprPtr value);
  void assign(int var, ir::ExprPtr value);
  // Assigns a local that every assignment gives the same kind of value (an
  // element operation's operand in element_of, an element index of
  // for_each_element): a constant is not assigned but stands in every read
  // of the local (ref), so the kernel IR indexes, divides and compares by
  // the constant itself, which the backends' compilers fold without
  // promoting the local first.
  void assign_constant_or(int var, ir::ExprPtr value);
  // Appends a loop nest over `shape`, calling `body` with the element's index
  // locals (outermost first) while the innermost block is current; a shape
  // of at most kStraightElements elements gets straight-line code instead,
  // the body once per element, and an axis of extent 1 no loop.
  static constexpr int64_t kStraightElements = 8;
  void for_each_element(const Shape& shape, const std::function<void(const std::vector<int>&)>& body);
  // A sequential loop `var` over [0, extent).
  void for_range(int var, ir::ExprPtr extent, const std::function<void()>& body);
  // In workgroups: `var` over this lane's share of [0, extent) (lane,
  // lane + lanes, ...).
  void for_lanes(int var, ir::ExprPtr extent, const std::function<void()>& body);
  // The same over a constant extent: at most one index per lane, as an
  // `if` rather than a loop, where the extent is at most a group's lanes.
  void for_lanes(int var, int64_t extent, const std::function<void()>& body);
  // In workgroups: a barrier when shared memory was touched or global
  // memory written since the last one (global reads wait for a write).
  // Operations with regions, copies and merges end with one; the simple
  // operations' barriers are placed by emit_op (barriers.cpp's rules).
  void sync();
  void if_then(ir::ExprPtr cond, const std::function<void()>& body);
  void if_else(ir::ExprPtr cond, const std::function<void()>& then_body, const std::function<void()>& else_body);
  void copy(const Storage& dst, const Storage& src);
  // Emits the operations of `block` (its yield and stage cuts excluded),
  // returning each tile's local array to the pool after its last use.
  void emit_block(const Block& block, const Operation* skip = nullptr);
  // dispatch() and a barrier where one is needed: for an operation of one
  // element loop (elementwise, load, store, ...) before it, where its
  // accesses conflict with those since the last barrier; for others
  // before (anything shared pending) and after, as sync() says.
  void emit_op(const Operation& op);
  void dispatch(const Operation& op);
  void emit_prologue_chain(const Value* v);

  // --- emit_binding.cpp ------------------------------------------------------
  // The launch's dimensions for the nest's levels under `binding`, and
  // each level's index; returns the condition the body runs under (a split
  // level's index inside its extent), or null when it always runs.
  ir::ExprPtr bind_launch(const LaunchNest& nest, const ExecBinding& binding);
  // A launch dimension over [0, end); returns its index's local.
  int add_dim(const char* name, ir::ExprPtr end);

  // --- emit_elementwise.cpp --------------------------------------------------
  void emit_elementwise(const Operation& op);
  // a op b on one element of type `elem` (both operands in locals).
  ir::ExprPtr scalar_binary(const Operation& site, OpKind kind, Scalar elem, int a, int b);
  ir::ExprPtr scalar_unary(const Operation& op, int a);  // neg, abs, exp, log, sqrt, not
  ir::ExprPtr scalar_cast(const Operation& op, int a);
  // Elementwise out = a op b over whole tiles (out may be a or b).
  void binary_tiles(const Operation& site, OpKind kind, const Storage& a, const Storage& b, const Storage& out);

  // --- emit_mma.cpp ----------------------------------------------------------
  void emit_mma(const Operation& op);
  // The register blocks of `mma` on this target (mma_atom.h).
  MmaAtom mma_atom(const Operation& mma) const;
  // Whether the mma that alone reads `load`'s tile reads it in place
  // (emit_mma.cpp's header says when).
  bool read_in_place(const Operation& load) const;

  // --- emit_memory.cpp -------------------------------------------------------
  void bind_parameters();
  void emit_memory(const Operation& op);
  // The test that every element of a `shape` tile through `v` lies inside
  // every bound and condition that is the same for the SIMD lanes (null:
  // there is none).
  ir::ExprPtr whole_window(const ViewInfo& v, const Shape& shape) const;
  // Whether a test of an access through `v` differs between the SIMD lanes.
  bool tests_vary(const ViewInfo& v) const;
  // The element of `v` at view position `at`, read without a test.
  ir::ExprPtr read_element(const ViewInfo& v, const std::vector<ir::ExprPtr>& at);
  // Whether a bound may differ between the SIMD lanes (it moves with the
  // innermost parallel iteration).
  bool moves_with_lanes(const Bound& b) const;
  // The local whose test the fast path of an access makes for condition c
  // of `v`: the one that holds for the coordinate's whole range where
  // there is one (ViewInfo::condition_for_all), else the condition itself.
  int condition_test(const ViewInfo& v, size_t c) const;
  // E for the index of a region whose extent is the constant E, else 0.
  int64_t index_range(const Value* index) const;
  // The tests that view position `at` (one expression per view axis) lies
  // inside every bound and condition, or with `only_varying` inside those
  // that may differ between lanes; the parameter indices of that position.
  std::vector<ir::ExprPtr> view_guards(const ViewInfo& v, const std::vector<ir::ExprPtr>& at, bool only_varying) const;
  std::vector<ir::ExprPtr> view_access(const ViewInfo& v, const std::vector<ir::ExprPtr>& at) const;
  // The parameter axis whose stride (extent) a leaf of v's layout is.
  int stride_axis_of(const ViewInfo& v, const IntTuple& stride) const;
  int extent_axis_of(const ViewInfo& v, const IntTuple& extent) const;

  // --- fusion.cpp ------------------------------------------------------------
  // The result of `op` (elementwise, select, cast, iota, broadcast, reshape,
  // extract): deferred where it can be computed where it is read, else
  // written to its storage element by element.
  void emit_by_element(const Operation& op);
  // Gives the result of `op` deferred storage where it can be computed
  // where it is read, and returns whether it did.
  bool defer(const Operation& op);
  // The element of `op`'s result at an index, read from its operands'
  // storage `in`: what a deferred tile computes where it is read, and what
  // a tile's element loop writes.
  std::function<ir::ExprPtr(std::vector<ir::ExprPtr>)> element_of(const Operation& op, std::vector<Storage> in);
  // Returns a dead tile's array to the pool, or holds it back while a
  // deferred tile still reads it; a dead deferred tile releases its hold.
  void give_back(int array);
  void release(const Deferred& d);
  std::unordered_map<int, int> pins_;  // array -> live deferred tiles reading it
  std::unordered_map<int, ir::ExprPtr> constant_locals_;  // local -> the constant that stands in its reads
  std::vector<int> held_back_;         // dead tiles' arrays that deferred tiles still read

  // --- emit_regions.cpp ------------------------------------------------------
  void emit_loop(const Operation& op);
  // The storage of a serial or pipeline region's carried values, filled
  // from the inits; the region's results share it.
  std::vector<Storage> bind_carried(const Operation& op);
  // Copies the yielded values `which` (carried value indices) into `carried`.
  void yield_into(const Operation& op, const std::vector<Storage>& carried, const std::vector<unsigned>& which);
  void emit_overlapped(const Operation& op, const PipelineSchedule& schedule, const std::vector<Storage>& carried);

  // --- emit_reduce.cpp -------------------------------------------------------
  void emit_reduce(const Operation& op);
  // In workgroups: the extent E of a reduce whose contributions the group's
  // lanes can compute apart and merge as a tree in shared memory
  // (tree_over_lanes, and buffers within the shared budget), else 0.
  int64_t lanes_share(const Operation& op) const;
  // Whether reduce `op`'s body reads a tile in registers (lane_tiles.h),
  // so that contribution k must be computed on lane k.
  bool owner_contributions(const Operation& op) const;
  // seed (+) T, T the ordered tree over the E contributions: lane i
  // computes contributions 2i and 2i + 1 and merges them (or, where they
  // read a tile in registers, lane k computes contribution k), then each
  // level merges adjacent pairs, one pair per lane, a barrier between
  // levels.
  void emit_reduce_over_lanes(const Operation& op, int64_t extent);
  void merge(const Operation& reduce, const std::vector<Storage>& a, const std::vector<Storage>& b,
             const std::vector<Storage>& out);

  const Kernel& kernel_;
  CompileOptions options_;
  LoweringTarget target_;
  int lane_ = -1;                 // in workgroups: the local holding the lane's index
  int64_t shared_bytes_ = 0;      // of the group's arrays so far
  bool lanes_apart_ = false;      // emitting code each lane runs on its own data: no barrier
  bool in_groups() const { return target_.workgroup_lanes > 0; }
  // Whether tiles are the group's, their elements spread over its lanes:
  // in workgroups, outside code the lanes run apart (a region bound to
  // exec::thread, a tree's steps), where each lane has its own tiles.
  bool spread() const { return in_groups() && !lanes_apart_; }
  ValueNames names_;
  std::unique_ptr<ir::Kernel> out_;
  ir::Block* block_ = nullptr;  // where statements go
  std::unordered_map<const Value*, Storage> storage_;
  std::unordered_map<const Value*, ViewInfo> views_;
  // Loaded tiles an mma reads in place (read_in_place), and whether such a
  // load is being emitted for the mma's ragged path.
  std::unordered_set<const Value*> in_place_;
  bool loading_now_ = false;
  std::vector<ParameterLayout> parameter_layouts_;  // per kernel parameter
  std::unordered_map<const Value*, bool> in_prologue_;
  std::vector<bool> varying_;  // per kernel IR local (varying())
  std::string notes_;          // notes(): each line once

  // Tile reuse. A block emitted once (every block but a combiner region's
  // and those inside one, which merges emit at several places) gives a
  // tile's local array back once the operation that reads it last has been
  // emitted, unless the block's yield reads it (the region's code reads
  // yielded storage after the block); define() takes a given-back array
  // of the same element type and shape before making one. So a chain of
  // tile operations holds the arrays its live tiles need, not one per
  // value, within the private scratch budget (ir::kPrivateScratchLimit).
  bool emitted_once(const Block& block) const;
  // What a reused array must match: element type, shape, and whether it is
  // the group's (shared) or one lane's.
  using ArrayKind = std::tuple<Scalar, std::vector<int64_t>, bool>;
  std::map<ArrayKind, std::vector<int>> free_arrays_;
  std::unordered_map<int, ArrayKind> array_kinds_;  // array -> its kind, for giving it back

  // Barriers in workgroups: each shared array's accesses since the last
  // barrier, and global memory's (kGlobal). An access is `own` when it is
  // at the element loop's own position (so by the element's lane); two
  // accesses of one array need a barrier between them when one writes and
  // one is not own. Global memory's are never own (views may alias).
  struct Access {
    bool own_read = false, own_write = false, cross_read = false, cross_write = false;
    bool writes() const { return own_write || cross_write; }
    bool cross() const { return cross_read || cross_write; }
  };
  static constexpr int kGlobal = -1;
  mutable std::map<int, Access> pending_;
  bool deferring_ = false;  // emitting a simple operation: emit_op places its barrier
  const std::vector<int>* element_idx_ = nullptr;  // in a spread element loop: the element's index locals
  Shape element_shape_;                            // and the loop's shape
  void note_access(int array, bool write, bool own) const;
  bool own_position(const Storage& s, const std::vector<ir::ExprPtr>& idx) const;
  bool conflicts(const std::map<int, Access>& next) const;
  bool significant_pending() const;  // shared accesses or global writes
  void barrier();                    // a barrier now; nothing is pending after it
  // Whether `op`, an operation with regions or a whole loop, must wait for
  // what is pending: anything shared or a global write, or global reads
  // where it stores.
  bool must_wait(const Operation& op) const;
  // At the end of a region loop's iteration: a barrier where the next
  // iteration could meet what this one left pending.
  void end_iteration(const Operation& loop);
  void join_pending(const std::map<int, Access>& other);  // either's accesses may be pending
  static bool one_element_loop(const Operation& op);      // emit_op places its barrier

  // Tiles in the lanes' registers (lane_tiles.h), in workgroups.
  std::unordered_set<const Value*> lane_tiles_;
  // In workgroups, the lane registers every lane assigns the same value
  // (emit_by_element), and whether `op`'s would be one.
  std::unordered_set<const Value*> same_on_lanes_;
  bool same_for_every_element(const Operation& op) const;
  int slot_ = -1;  // in a spread element loop: the local holding the element's slot (e / lanes)
  Storage lane_storage(const Value* v);
  ir::ExprPtr lane_slot() const;  // slot_, which must be set
  std::unordered_map<const Value*, int> reusable_;  // value -> the array define() gave it
};

}  // namespace tack::tile::lower
