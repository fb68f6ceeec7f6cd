#include "codegen/llvm/widen_masks.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/CodeGen/TargetLowering.h>
#include <llvm/CodeGen/TargetSubtargetInfo.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <map>
#include <vector>

namespace tack::codegen {

namespace {

using llvm::Instruction;
using llvm::Value;

bool is_mask(const Value* v) {
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
    return vt && vt->getElementType()->isIntegerTy(1);
}

// The masks' operations that can work on wide lanes instead.
bool rewritable(const Instruction& i) {
    if (!is_mask(&i)) return false;
    if (llvm::isa<llvm::PHINode>(i)) return true;
    if (llvm::isa<llvm::SelectInst>(i)) return true;
    switch (i.getOpcode()) {
        case Instruction::And:
        case Instruction::Or:
        case Instruction::Xor: return true;
        default: return false;
    }
}

class Widening {
public:
    Widening(llvm::Function& f, unsigned lanes, unsigned bits)
        : f_(f), type_(llvm::FixedVectorType::get(llvm::Type::getIntNTy(f.getContext(), bits), lanes)) {}

    void run() {
        // Definitions before uses, apart from phis' incoming values.
        std::vector<Instruction*> order;
        llvm::ReversePostOrderTraversal<llvm::Function*> rpo(&f_);
        for (llvm::BasicBlock* block : rpo)
            for (auto& i : *block)
                if (rewritable(i) && llvm::cast<llvm::FixedVectorType>(i.getType()) == narrow_type()) order.push_back(&i);
        if (order.empty()) return;
        for (auto* i : order)
            if (auto* phi = llvm::dyn_cast<llvm::PHINode>(i))
                wide_[i] = llvm::PHINode::Create(type_, phi->getNumIncomingValues(), phi->getName() + ".wide", phi->getIterator());
        for (auto* i : order) {
            if (llvm::isa<llvm::PHINode>(i)) continue;
            llvm::IRBuilder<> b(i);
            if (auto* s = llvm::dyn_cast<llvm::SelectInst>(i))
                wide_[i] = b.CreateSelect(s->getCondition(), wide(s->getTrueValue()), wide(s->getFalseValue()));
            else
                wide_[i] = b.CreateBinOp(static_cast<llvm::Instruction::BinaryOps>(i->getOpcode()), wide(i->getOperand(0)),
                                         wide(i->getOperand(1)));
        }
        for (auto* i : order)
            if (auto* phi = llvm::dyn_cast<llvm::PHINode>(i))
                for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k)
                    llvm::cast<llvm::PHINode>(wide_[i])->addIncoming(wide(phi->getIncomingValue(k), phi->getIncomingBlock(k)),
                                                                     phi->getIncomingBlock(k));
        // Every use outside the rewritten operations reads the sign.
        for (auto* i : order) {
            auto* w = llvm::cast<Instruction>(wide_[i]);
            llvm::IRBuilder<> b(w->getParent(), llvm::isa<llvm::PHINode>(w) ? w->getParent()->getFirstInsertionPt()
                                                                             : std::next(w->getIterator()));
            i->replaceAllUsesWith(b.CreateICmpSLT(w, llvm::Constant::getNullValue(type_)));
        }
        for (auto* i : order) i->dropAllReferences();
        for (auto* i : order) i->eraseFromParent();
    }

private:
    llvm::FixedVectorType* narrow_type() const {
        return llvm::FixedVectorType::get(llvm::Type::getInt1Ty(f_.getContext()), type_->getNumElements());
    }

    // `v` in wide lanes: rewritten already, a constant, or sign-extended
    // where it is defined (for a phi's incoming value from outside the
    // rewritten operations, at the end of the incoming block).
    Value* wide(Value* v, llvm::BasicBlock* incoming = nullptr) {
        if (auto it = wide_.find(v); it != wide_.end()) return it->second;
        if (auto* c = llvm::dyn_cast<llvm::Constant>(v))
            return llvm::ConstantFoldCastOperand(Instruction::SExt, c, type_, f_.getParent()->getDataLayout());
        if (incoming) {
            llvm::IRBuilder<> b(incoming->getTerminator());
            return b.CreateSExt(v, type_);
        }
        if (auto it = extended_.find(v); it != extended_.end()) return it->second;
        llvm::IRBuilder<> b(f_.getContext());
        if (auto* i = llvm::dyn_cast<Instruction>(v)) {
            if (llvm::isa<llvm::PHINode>(i)) b.SetInsertPoint(i->getParent(), i->getParent()->getFirstInsertionPt());
            else b.SetInsertPoint(i->getParent(), std::next(i->getIterator()));
        } else {
            b.SetInsertPoint(&f_.getEntryBlock(), f_.getEntryBlock().getFirstInsertionPt());
        }
        return extended_[v] = b.CreateSExt(v, type_);
    }

    llvm::Function& f_;
    llvm::FixedVectorType* type_;
    std::map<Value*, Value*> wide_;      // a rewritten operation's wide form
    std::map<Value*, Value*> extended_;  // another mask, sign-extended once
};

}  // namespace

void widen_masks(llvm::Module& m, llvm::TargetMachine& tm) {
    for (auto& f : m) {
        if (f.isDeclaration()) continue;
        // The lane counts of the function's rewritable masks.
        std::vector<unsigned> lane_counts;
        for (auto& block : f)
            for (auto& i : block)
                if (rewritable(i)) lane_counts.push_back(llvm::cast<llvm::FixedVectorType>(i.getType())->getNumElements());
        if (lane_counts.empty()) continue;
        std::sort(lane_counts.begin(), lane_counts.end());
        lane_counts.erase(std::unique(lane_counts.begin(), lane_counts.end()), lane_counts.end());
        const llvm::TargetLowering& lowering = *tm.getSubtargetImpl(f)->getTargetLowering();
        uint64_t register_bits = tm.getTargetTransformInfo(f)
                                     .getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
                                     .getFixedValue();
        for (unsigned lanes : lane_counts) {
            // Masks the host holds as they are (AVX-512's k registers) stay.
            if (lowering.isTypeLegal(llvm::EVT::getVectorVT(f.getContext(), llvm::MVT::i1, lanes))) continue;
            uint64_t bits = std::clamp<uint64_t>(2 * register_bits / lanes, 8, 64);
            Widening(f, lanes, static_cast<unsigned>(bits)).run();
        }
    }
}

}  // namespace tack::codegen
