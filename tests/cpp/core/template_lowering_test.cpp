// Device-class instances in lowering: an instance is a marker parameter
// followed by its leaves; attributes read leaves or literals, methods
// inline with `self` bound, and mistakes are diagnosed at their position.
#include <gtest/gtest.h>

#include "frontend/template.h"
#include "test_support.h"

namespace tack {
namespace {

using frontend::TemplateInfo;
using frontend::TemplateMember;
using K = TemplateMember::Kind;

// class Grid: values (array), scale (number), shape (a tuple of two),
// offset = 10, and a method `at`.
std::shared_ptr<TemplateInfo> grid() {
    auto info = std::make_shared<TemplateInfo>();
    info->id = 7;
    info->class_name = "Grid";
    info->leaf_names = {"values", "scale", "shape[0]", "shape[1]"};
    TemplateMember values;
    values.kind = K::Array;
    values.leaf = 0;
    TemplateMember scale;
    scale.kind = K::Scalar;
    scale.leaf = 1;
    TemplateMember shape;
    shape.kind = K::Tuple;
    shape.leaf = 2;
    shape.count = 2;
    TemplateMember offset;
    offset.kind = K::Static;
    offset.resolution.kind = frontend::Resolution::Kind::Constant;
    offset.resolution.int_bits = 10;
    TemplateMember at;
    at.kind = K::Method;
    at.resolution.kind = frontend::Resolution::Kind::DeviceFunction;
    auto ref = std::make_shared<frontend::DeviceFunctionRef>();
    ref->name = "at";
    ref->source = testing::source(
        "def at(self, i):\n"
        "    return self.values[i] * self.scale + self.offset + self.shape[-1]\n");
    ref->resolver = std::make_shared<testing::TestResolver>();
    ref->identity = 1234;
    at.resolution.function = ref;
    info->members = {{"values", values}, {"scale", scale}, {"shape", shape}, {"offset", offset}, {"at", at}};
    return info;
}

std::unique_ptr<ir::Kernel> lowered(const std::string& text, const TemplateInfo& info) {
    auto tree = syntax::parse_function(testing::source(text));
    std::vector<frontend::ParamShape> shapes(6);
    shapes[0].object = &info;
    for (int i : {1, 5}) {  // g.values and out; g.scale, g.shape[0] and g.shape[1] are numbers
        shapes[i].is_array = true;
        shapes[i].ndim = 1;
    }
    return driver::build_template(*tree, std::make_shared<testing::TestResolver>(), shapes);
}

syntax::Diagnostic diagnostic_of(const std::string& text, const TemplateInfo& info) {
    try {
        lowered(text, info);
    } catch (const syntax::CompileError& e) {
        return e.diagnostic();
    }
    ADD_FAILURE() << "no diagnostic for:\n" << text;
    return {};
}

TEST(TemplateLowering, AnInstanceIsAMarkerFollowedByItsLeavesNamedByPath) {
    auto info = grid();
    auto k = lowered(
        "def k(g, out):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = g.at(i)\n",
        *info);
    ASSERT_EQ(k->params.size(), 6u);
    EXPECT_EQ(k->params[0].kind, ir::ParamKind::Object);
    EXPECT_EQ(k->params[0].object_class, "Grid");
    EXPECT_EQ(k->params[1].name, "g.values");
    EXPECT_EQ(k->params[1].kind, ir::ParamKind::Array);
    EXPECT_EQ(k->params[2].name, "g.scale");
    EXPECT_EQ(k->params[4].name, "g.shape[1]");
    EXPECT_EQ(k->params[5].name, "out");
    std::string text = ir::print(*k);
    EXPECT_NE(text.find("g.values["), std::string::npos) << text;
    EXPECT_NE(text.find("g.shape[1]"), std::string::npos) << text;  // shape[-1]
    EXPECT_NE(text.find("10"), std::string::npos) << text;          // the class constant, a literal
}

TEST(TemplateLowering, AMissingAttributeNamesTheClassAndPosition) {
    auto info = grid();
    auto d = diagnostic_of(
        "def k(g, out):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = g.missing\n",
        *info);
    EXPECT_EQ(d.kind, syntax::ErrorKind::Name);
    EXPECT_NE(d.message.find("'Grid' object has no attribute 'missing'"), std::string::npos) << d.message;
    EXPECT_EQ(d.span.line, 3);
    EXPECT_EQ(d.span.col, 18);
}

TEST(TemplateLowering, TupleAttributesTakeLiteralIndicesInRange) {
    auto info = grid();
    auto d = diagnostic_of(
        "def k(g, out):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = g.shape[2]\n",
        *info);
    EXPECT_EQ(d.kind, syntax::ErrorKind::Type);
    EXPECT_NE(d.message.find("index out of range for 'g.shape'"), std::string::npos) << d.message;
    d = diagnostic_of(
        "def k(g, out):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = g.shape[i]\n",
        *info);
    EXPECT_NE(d.message.find("indexed with a literal integer"), std::string::npos) << d.message;
}

TEST(TemplateLowering, InstancesAreReadOnlyAndNotRebound) {
    auto info = grid();
    auto d = diagnostic_of(
        "def k(g, out):\n"
        "    for i in range(len(out)):\n"
        "        g.scale = 2\n",
        *info);
    EXPECT_EQ(d.kind, syntax::ErrorKind::Unsupported);
    EXPECT_NE(d.message.find("attribute 'scale' of an instance"), std::string::npos) << d.message;
    d = diagnostic_of(
        "def k(g, out):\n"
        "    for i in range(len(out)):\n"
        "        h = g\n",
        *info);
    EXPECT_NE(d.message.find("cannot be bound to another name"), std::string::npos) << d.message;
}

TEST(TemplateLowering, IndexingWithoutGetitemIsRefused) {
    auto info = grid();
    auto d = diagnostic_of(
        "def k(g, out):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = g[i]\n",
        *info);
    EXPECT_EQ(d.kind, syntax::ErrorKind::Type);
    EXPECT_NE(d.message.find("'Grid' object does not support indexing"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tack
