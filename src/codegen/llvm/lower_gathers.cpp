#include "codegen/llvm/lower_gathers.h"

#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <vector>

namespace tack::codegen {

using llvm::Value;

namespace {

bool in_hardware(const llvm::TargetTransformInfo& tti, llvm::IntrinsicInst& call) {
    bool gather = call.getIntrinsicID() == llvm::Intrinsic::masked_gather;
    auto* type = gather ? call.getType() : call.getArgOperand(0)->getType();
    llvm::Align align(llvm::cast<llvm::ConstantInt>(call.getArgOperand(gather ? 1 : 2))->getZExtValue());
    if (gather) return tti.isLegalMaskedGather(type, align) && !tti.forceScalarizeMaskedGather(llvm::cast<llvm::VectorType>(type), align);
    return tti.isLegalMaskedScatter(type, align) && !tti.forceScalarizeMaskedScatter(llvm::cast<llvm::VectorType>(type), align);
}

void lower(llvm::Function& f, const llvm::TargetTransformInfo& tti) {
    std::vector<llvm::IntrinsicInst*> calls;
    uint64_t widest = 0;  // bytes of the widest element, for the spare slot
    const llvm::DataLayout& layout = f.getParent()->getDataLayout();
    for (auto& block : f)
        for (auto& inst : block)
            if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
                if ((call->getIntrinsicID() == llvm::Intrinsic::masked_gather ||
                     call->getIntrinsicID() == llvm::Intrinsic::masked_scatter) &&
                    !in_hardware(tti, *call)) {
                    calls.push_back(call);
                    auto* vt = llvm::cast<llvm::VectorType>(
                        call->getIntrinsicID() == llvm::Intrinsic::masked_gather ? call->getType()
                                                                                  : call->getArgOperand(0)->getType());
                    widest = std::max<uint64_t>(widest, layout.getTypeStoreSize(vt->getElementType()));
                }
    if (calls.empty()) return;
    llvm::IRBuilder<> entry(&f.getEntryBlock(), f.getEntryBlock().getFirstInsertionPt());
    auto* spare = entry.CreateAlloca(llvm::ArrayType::get(entry.getInt8Ty(), widest), nullptr, "lanes.spare");
    spare->setAlignment(llvm::Align(16));
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 4> metadata;
    for (auto* call : calls) {
        llvm::IRBuilder<> b(call);
        bool gather = call->getIntrinsicID() == llvm::Intrinsic::masked_gather;
        Value* ptrs = call->getArgOperand(gather ? 0 : 1);
        Value* mask = call->getArgOperand(gather ? 2 : 3);
        llvm::Align align(llvm::cast<llvm::ConstantInt>(call->getArgOperand(gather ? 1 : 2))->getZExtValue());
        unsigned lanes = llvm::cast<llvm::FixedVectorType>(ptrs->getType())->getNumElements();
        Value* own = b.CreateSelect(mask, ptrs, b.CreateVectorSplat(lanes, spare));
        call->getAllMetadataOtherThanDebugLoc(metadata);
        auto tag = [&](llvm::Instruction* access) {
            for (auto& [kind, node] : metadata) access->setMetadata(kind, node);
        };
        if (gather) {
            auto* type = call->getType();
            Value* loaded = llvm::PoisonValue::get(type);
            for (unsigned l = 0; l < lanes; ++l) {
                auto* load = b.CreateAlignedLoad(type->getScalarType(), b.CreateExtractElement(own, l), align);
                tag(load);
                loaded = b.CreateInsertElement(loaded, load, l);
            }
            call->replaceAllUsesWith(b.CreateSelect(mask, loaded, call->getArgOperand(3)));
        } else {
            // In lane order: of several lanes storing to one element, the
            // last wins, as the intrinsic's lanes do.
            Value* v = call->getArgOperand(0);
            for (unsigned l = 0; l < lanes; ++l)
                tag(b.CreateAlignedStore(b.CreateExtractElement(v, l), b.CreateExtractElement(own, l), align));
        }
        call->eraseFromParent();
    }
}

}  // namespace

void lower_gathers(llvm::Module& m, llvm::TargetMachine& tm) {
    for (auto& f : m)
        if (!f.isDeclaration()) lower(f, tm.getTargetTransformInfo(f));
}

}  // namespace tack::codegen
