// Sampling a 3D texture: tex.sample(u, v, w) or tex.sample(p) for a
// 3-vector p, in normalized coordinates. Texel i of an axis with N texels
// has its center at (i + 0.5) / N, so [0, 1] spans the whole texture;
// addressing clamps to the edge texels. The value is trilinear
// interpolation in f32, written out as scalar IR:
//
//   t = u * N - 0.5;  i = floor(t);  a = t - i          (per axis)
//   i0 = clamp(i, 0, N - 1);  i1 = clamp(i + 1, 0, N - 1)
//   lerp(p, q, a) = (1 - a) * p + a * q
//   x first (four lerps), then y (two), then z (one).
//
// The snapshot is a (depth, height, width) array, so a texel is loaded as
// tex[z, y, x]. A texture the device filters in hardware (`image`) is one
// TextureSample node instead; the texture unit computes the same formula
// with weights of 8 fractional bits.
#include "frontend/lowerer.h"
#include "ir/build.h"

namespace tack::frontend {

using namespace syntax;
using ir::ExprPtr;

void Lowerer::refuse_texture(int array, Span span, const std::string& what) {
    if (k_.params[array].kind != ir::ParamKind::Texture) return;
    fail(ErrorKind::Type, span, "texture '" + k_.params[array].name + "' is sampled, not " + what, "texture",
         "read it with " + k_.params[array].name + ".sample(u, v, w), in normalized coordinates");
}

Value Lowerer::texture_sample(int texture, const syntax::Call& c) {
    Span span = c.span;
    auto& p = k_.params[texture];
    p.used = true;
    ir::Block pre;
    std::vector<ExprPtr> coords;
    if (c.args.size() == 1) {
        Value v = expr(*c.args[0]);
        if (v.kind != Value::Kind::Vector || v.shape != std::vector<int>{3})
            fail(ErrorKind::Type, c.args[0]->span, p.name + ".sample() takes three coordinates or one vec3", "sample");
        coords = components(std::move(v), pre);
    } else if (c.args.size() == 3) {
        for (auto& a : c.args) coords.push_back(pure(scalar(*a, "a coordinate"), pre));
    } else {
        fail(ErrorKind::Type, span, p.name + ".sample() takes three coordinates or one vec3", "sample");
    }

    auto f32 = [&](ExprPtr e) { return ir::cast(DType::F32, std::move(e), span); };
    if (p.image) {
        auto sample = std::make_unique<ir::TextureSample>();
        sample->texture = texture;
        for (auto& c : coords) sample->coords.push_back(f32(std::move(c)));
        sample->span = span;
        return Value::scalar(with_prelude(std::move(pre), std::move(sample)), span);
    }
    auto i64 = [&](ExprPtr e) { return ir::cast(DType::I64, std::move(e), span); };
    auto bin = [&](ir::BinOp op, ExprPtr a, ExprPtr b) { return ir::binary(op, std::move(a), std::move(b), span); };
    auto real = [&](double v) {
        auto n = std::make_unique<ir::FloatConst>();
        n->value = v;
        n->span = span;
        return f32(std::move(n));
    };
    auto extent = [&](int dim) {
        auto d = std::make_unique<ir::ArrayDim>();
        d->array = texture;
        d->dim = dim;
        d->span = span;
        return d;
    };
    // `a if a >= lo else lo`, then the same against hi: NaN goes to lo.
    auto clamp_real = [&](ExprPtr a, ExprPtr lo, ExprPtr hi) {
        ExprPtr held = pure(std::move(a), pre);
        ExprPtr ge = ir::compare(ir::CmpOp::Ge, ir::clone(*held), ir::clone(*lo), span);
        ExprPtr l = pure(ir::select(std::move(ge), std::move(held), std::move(lo), span), pre);
        ExprPtr le = ir::compare(ir::CmpOp::Le, ir::clone(*l), ir::clone(*hi), span);
        return pure(ir::select(std::move(le), std::move(l), std::move(hi), span), pre);
    };

    // Per axis (x, y, z are dimensions 2, 1, 0 of the snapshot): the two
    // texel indices and the weight of the second.
    ExprPtr lo_index[3], hi_index[3], weight[3];
    for (int axis = 0; axis < 3; ++axis) {
        int dim = 2 - axis;
        ExprPtr n = pure(extent(dim), pre);
        ExprPtr t = pure(bin(ir::BinOp::Sub, bin(ir::BinOp::Mul, f32(std::move(coords[axis])), f32(ir::clone(*n))),
                             real(0.5)),
                         pre);
        std::vector<ExprPtr> arg;
        arg.push_back(ir::clone(*t));
        ExprPtr fl = pure(ir::math(ir::MathFn::Floor, std::move(arg), span), pre);
        weight[axis] = pure(bin(ir::BinOp::Sub, std::move(t), ir::clone(*fl)), pre);
        // Converted to an integer only once inside [-1, N], where it is exact.
        ExprPtr i = pure(i64(clamp_real(std::move(fl), real(-1.0), f32(ir::clone(*n)))), pre);
        ExprPtr last = pure(bin(ir::BinOp::Sub, ir::clone(*n), int_const(1, span)), pre);
        auto clamp_index = [&](ExprPtr k) {
            return pure(bin(ir::BinOp::Max, bin(ir::BinOp::Min, std::move(k), ir::clone(*last)), int_const(0, span)),
                        pre);
        };
        lo_index[axis] = clamp_index(ir::clone(*i));
        hi_index[axis] = clamp_index(bin(ir::BinOp::Add, std::move(i), int_const(1, span)));
    }
    auto texel = [&](bool hx, bool hy, bool hz) {
        auto load = std::make_unique<ir::Load>();
        load->array = texture;
        load->indices.push_back(ir::clone(hz ? *hi_index[2] : *lo_index[2]));
        load->indices.push_back(ir::clone(hy ? *hi_index[1] : *lo_index[1]));
        load->indices.push_back(ir::clone(hx ? *hi_index[0] : *lo_index[0]));
        load->span = span;
        return pure(std::move(load), pre);
    };
    auto lerp = [&](ExprPtr a, ExprPtr b, int axis) {
        ExprPtr keep = bin(ir::BinOp::Mul, bin(ir::BinOp::Sub, real(1.0), ir::clone(*weight[axis])), std::move(a));
        return pure(bin(ir::BinOp::Add, std::move(keep), bin(ir::BinOp::Mul, ir::clone(*weight[axis]), std::move(b))),
                    pre);
    };
    ExprPtr c00 = lerp(texel(false, false, false), texel(true, false, false), 0);
    ExprPtr c10 = lerp(texel(false, true, false), texel(true, true, false), 0);
    ExprPtr c01 = lerp(texel(false, false, true), texel(true, false, true), 0);
    ExprPtr c11 = lerp(texel(false, true, true), texel(true, true, true), 0);
    ExprPtr c0 = lerp(std::move(c00), std::move(c10), 1);
    ExprPtr c1 = lerp(std::move(c01), std::move(c11), 1);
    return Value::scalar(with_prelude(std::move(pre), lerp(std::move(c0), std::move(c1), 2)), span);
}

}  // namespace tack::frontend
