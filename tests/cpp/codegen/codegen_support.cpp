#include "codegen_support.h"

#include <set>

namespace tack::testing {

frontend::Resolution CodegenResolver::resolve(const std::vector<std::string>& path) {
    static const std::set<std::string> tack_builtins = {"atomic_add", "atomic_min", "atomic_max", "local_array",
                                                        "ndindex"};
    static const std::set<std::string> math = {"sqrt", "sin",   "cos",  "tan",  "asin", "acos", "atan",
                                               "atan2", "exp", "log", "floor", "ceil", "fabs"};
    frontend::Resolution r;
    if (path.size() == 1 && path[0] == "print") {
        r.kind = frontend::Resolution::Kind::Builtin;
        r.builtin = "print";
        return r;
    }
    if (path.size() == 2 && ((path[0] == "tack" && tack_builtins.count(path[1])) ||
                             ((path[0] == "tack" || path[0] == "math") && math.count(path[1])))) {
        r.kind = frontend::Resolution::Kind::Builtin;
        r.builtin = path[1];
        return r;
    }
    return TestResolver::resolve(path);
}

std::unique_ptr<ir::Kernel> codegen_kernel(const std::string& text, const std::vector<driver::ParamFacts>& params) {
    return typed_kernel(text, params, std::make_shared<CodegenResolver>());
}

std::vector<SampleKernel> sample_kernels() {
    using P = std::vector<driver::ParamFacts>;
    std::vector<SampleKernel> ks;
    // Integer arithmetic of every width through every operator.
    const DType ints[] = {DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64};
    for (DType t : ints) {
        std::string n(name_of(t));
        ks.push_back({"int_ops_" + n,
                      "def int_ops(a, b, out, s):\n"
                      "    for i in range(len(a)):\n"
                      "        x = a[i]\n"
                      "        y = b[i]\n"
                      "        r = x + y - x * y\n"
                      "        r = r + x // y + x % y + (x << 1) + (x >> 2)\n"
                      "        r = r + (x & y) + (x | y) + (x ^ y) + ~x + -y + abs(x)\n"
                      "        r = r + min(x, y) + max(x, y) + x ** 3 + x ** s\n"
                      "        if x < y and not (x == y or x >= y):\n"
                      "            r = r + tack." + n + "(1)\n"
                      "        out[i] = r if x != y else tack." + n + "(s)\n",
                      P{array_of(t), array_of(t), array_of(t), scalar_of(DType::I32)}});
    }
    for (DType t : {DType::F32, DType::F64}) {
        std::string n(name_of(t));
        ks.push_back({"float_ops_" + n,
                      "def float_ops(a, b, out, n):\n"
                      "    for i in range(n):\n"
                      "        x = a[i]\n"
                      "        y = b[i]\n"
                      "        r = x + y - x * y / (y + 0.5) + x // y + x % y + x ** y + -x\n"
                      "        r = r + tack.sqrt(abs(x)) + tack.sin(x) + tack.cos(x) + tack.tan(x) + tack.exp(x)\n"
                      "        r = r + tack.log(abs(x) + 1.0) + tack.floor(x) + tack.ceil(y) + tack.atan2(x, y)\n"
                      "        r = r + tack.asin(x * 0.0) + tack.acos(x * 0.0) + tack.atan(x) + min(x, y) + max(x, y)\n"
                      "        r = r + pow(x, 2.0) + 1e300 * 0.0 + 3.0e-5\n"
                      "        if x:\n"
                      "            r = r + tack." + n + "(i) + tack.i32(x) + tack.u64(y)\n"
                      "        out[i] = r\n",
                      P{array_of(t), array_of(t), array_of(t), scalar_of(DType::I64)}, t == DType::F64});
    }
    ks.push_back({"control",
                  "def control(a, m, n: int):\n"
                  "    for i, j in tack.ndindex(m.shape[0], (1, m.shape[1])):\n"
                  "        t = 0\n"
                  "        for k in range(j, 100, 3):\n"
                  "            if k > 50:\n"
                  "                break\n"
                  "            if k == 7:\n"
                  "                continue\n"
                  "            t += k\n"
                  "        while t > 10:\n"
                  "            t = t - 10\n"
                  "            if t == 13:\n"
                  "                continue\n"
                  "        if t == 3:\n"
                  "            continue\n"
                  "        m[i, j] = m[i, j] + tack.f32(t) + a[i * 2]\n",
                  P{array_of(DType::F32), array_of(DType::F32, 2), scalar_of(DType::I32)}});
    ks.push_back({"atomics32",
                  "def atomics32(a, b, c, n):\n"
                  "    for i in range(n):\n"
                  "        old = tack.atomic_add(a, i % 4, 1)\n"
                  "        tack.atomic_min(a, 0, old)\n"
                  "        tack.atomic_max(b, 0, tack.u32(i))\n"
                  "        c[i] = tack.atomic_add(c, 0, 1.5) + tack.atomic_min(c, 1, 0.5) + tack.atomic_max(c, 2, 2.5)\n",
                  P{array_of(DType::I32), array_of(DType::U32), array_of(DType::F32), scalar_of(DType::I32)}});
    ks.push_back({"atomics64",
                  "def atomics64(a, b, c, n):\n"
                  "    for i in range(n):\n"
                  "        tack.atomic_add(a, 0, tack.i64(i))\n"
                  "        tack.atomic_min(a, 1, tack.i64(i))\n"
                  "        tack.atomic_max(b, 0, tack.u64(i))\n"
                  "        c[i] = tack.atomic_add(c, 0, 1.5) + tack.atomic_max(c, 1, 2.5)\n",
                  P{array_of(DType::I64), array_of(DType::U64), array_of(DType::F64), scalar_of(DType::I32)}, true,
                  true});
    ks.push_back({"effects",
                  "def effects(a, b) -> int:\n"
                  "    base = len(a) - 1\n"
                  "    for i in range(len(a)):\n"
                  "        tmp = tack.local_array(4, tack.f32)\n"
                  "        tmp[i % 4] = 1.0\n"
                  "        x = a[i] + tack.atomic_add(b, 0, 2) * a[i]\n"
                  "        y = (tack.atomic_add(b, 1, 1) > 0) and (tack.atomic_min(b, 2, 3) < 5)\n"
                  "        z = tack.atomic_add(b, 3, 1) if x > 0.0 else b[0]\n"
                  "        a[i] = x + tack.f32(y + z) + tmp[i % 4] + tack.f32(base)\n"
                  "    return b[0] + base\n",
                  P{array_of(DType::F32), array_of(DType::I32)}});
    ks.push_back({"saxpy",
                  "def saxpy(y, x, alpha: float):\n"
                  "    for i in range(len(y)):\n"
                  "        y[i] = alpha * x[i] + y[i]\n",
                  P{array_of(DType::F32), array_of(DType::F32), scalar_of(DType::F32)}});
    ks.push_back({"prints",
                  "def prints(a, b):\n"
                  "    for i in range(len(a)):\n"
                  "        print(i, a[i], b[i], tack.u8(i) + tack.u8(200))\n",
                  P{array_of(DType::F32), array_of(DType::I16)}});
    // Every workgroup primitive: a shared tile, the lane index, barriers
    // and the three block reductions.
    ks.push_back({"workgroups",
                  "def workgroups(a, out):\n"
                  "    for i in range(len(a)):\n"
                  "        tile = tack.shared(256, tack.f32)\n"
                  "        t = tack.thread_id()\n"
                  "        tile[t] = a[i]\n"
                  "        tack.barrier()\n"
                  "        s = tack.block_sum(tile[255 - t])\n"
                  "        out[i] = s + tack.block_min(a[i]) - tack.block_max(a[i])\n",
                  P{array_of(DType::F32), array_of(DType::F32)}});
    // A texture the device samples in hardware (CUDA), at three scalar
    // coordinates of which two are converted to f32.
    driver::ParamFacts image{true, DType::F32, 3, true, {}, false, true, true};
    ks.push_back({"textures",
                  "def textures(tex, p, out):\n"
                  "    for i in range(len(out)):\n"
                  "        out[i] = tex.sample(p[i, 0], tack.f32(i) / 7.0, 0.5) + 1.0\n",
                  P{image, array_of(DType::F32, 2), array_of(DType::F32)}, false, false, true});
    return ks;
}

}  // namespace tack::testing
