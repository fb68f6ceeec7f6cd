// The CUDA structures driver_api.h declares by their ABI, checked against
// <cuda.h> itself: every field at the header's offset, every size equal,
// every constant Tack passes equal to the header's enumerator. Built where
// the CUDA toolkit's headers are installed.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "backends/gpu/driver_api.h"

namespace tack::backends::gpu {
namespace {

#define TACK_SAME_FIELD(ours, field, theirs, their_field) \
    static_assert(offsetof(ours, field) == offsetof(theirs, their_field), #ours "::" #field)

static_assert(sizeof(ArrayDescriptor3D) == sizeof(CUDA_ARRAY3D_DESCRIPTOR_v2));
TACK_SAME_FIELD(ArrayDescriptor3D, width, CUDA_ARRAY3D_DESCRIPTOR_v2, Width);
TACK_SAME_FIELD(ArrayDescriptor3D, depth, CUDA_ARRAY3D_DESCRIPTOR_v2, Depth);
TACK_SAME_FIELD(ArrayDescriptor3D, format, CUDA_ARRAY3D_DESCRIPTOR_v2, Format);
TACK_SAME_FIELD(ArrayDescriptor3D, channels, CUDA_ARRAY3D_DESCRIPTOR_v2, NumChannels);
TACK_SAME_FIELD(ArrayDescriptor3D, flags, CUDA_ARRAY3D_DESCRIPTOR_v2, Flags);

static_assert(sizeof(Copy3D) == sizeof(CUDA_MEMCPY3D_v2));
TACK_SAME_FIELD(Copy3D, src_memory_type, CUDA_MEMCPY3D_v2, srcMemoryType);
TACK_SAME_FIELD(Copy3D, src_host, CUDA_MEMCPY3D_v2, srcHost);
TACK_SAME_FIELD(Copy3D, src_array, CUDA_MEMCPY3D_v2, srcArray);
TACK_SAME_FIELD(Copy3D, src_pitch, CUDA_MEMCPY3D_v2, srcPitch);
TACK_SAME_FIELD(Copy3D, src_height, CUDA_MEMCPY3D_v2, srcHeight);
TACK_SAME_FIELD(Copy3D, dst_memory_type, CUDA_MEMCPY3D_v2, dstMemoryType);
TACK_SAME_FIELD(Copy3D, dst_array, CUDA_MEMCPY3D_v2, dstArray);
TACK_SAME_FIELD(Copy3D, dst_height, CUDA_MEMCPY3D_v2, dstHeight);
TACK_SAME_FIELD(Copy3D, width_bytes, CUDA_MEMCPY3D_v2, WidthInBytes);
TACK_SAME_FIELD(Copy3D, depth, CUDA_MEMCPY3D_v2, Depth);

static_assert(sizeof(ResourceDescriptor) == sizeof(CUDA_RESOURCE_DESC));
TACK_SAME_FIELD(ResourceDescriptor, resource.array, CUDA_RESOURCE_DESC, res.array.hArray);
TACK_SAME_FIELD(ResourceDescriptor, flags, CUDA_RESOURCE_DESC, flags);

static_assert(sizeof(TextureDescriptor) == sizeof(CUDA_TEXTURE_DESC));
TACK_SAME_FIELD(TextureDescriptor, filter_mode, CUDA_TEXTURE_DESC, filterMode);
TACK_SAME_FIELD(TextureDescriptor, flags, CUDA_TEXTURE_DESC, flags);
TACK_SAME_FIELD(TextureDescriptor, border_color, CUDA_TEXTURE_DESC, borderColor);
TACK_SAME_FIELD(TextureDescriptor, reserved, CUDA_TEXTURE_DESC, reserved);

static_assert(kArrayFormatFloat == CU_AD_FORMAT_FLOAT);
static_assert(kMemoryTypeHost == CU_MEMORYTYPE_HOST);
static_assert(kMemoryTypeArray == CU_MEMORYTYPE_ARRAY);
static_assert(kResourceTypeArray == CU_RESOURCE_TYPE_ARRAY);
static_assert(kAddressModeClamp == CU_TR_ADDRESS_MODE_CLAMP);
static_assert(kFilterModeLinear == CU_TR_FILTER_MODE_LINEAR);
static_assert(kNormalizedCoordinates == CU_TRSF_NORMALIZED_COORDINATES);
static_assert(kNoTrilinearShortcut == CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION);
static_assert(sizeof(CUtexObject) == sizeof(uint64_t));

// The checks above are the test; this records that they were compiled.
TEST(CudaAbi, ImageStructuresMatchTheHeader) { SUCCEED(); }

}  // namespace
}  // namespace tack::backends::gpu
