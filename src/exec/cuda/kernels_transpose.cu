// A copy read transposed (kernels_internal.h launchTranspose): the
// pointwise catalog's copy of one operand whose stride-1 dim is the
// output's second, for 2- and 4-byte elements.
//
// A block moves tiles of T x T elements, T = 16 chunks of 16 bytes (128
// halves or 64 floats), 32 KiB or 16 KiB:
//  1. each thread loads 8 (or 4) chunks of the tile's source rows, 16
//     bytes each, a warp reading two whole 256-byte row segments, and
//     stores them to shared memory, chunk c of row ii at position
//     c ^ ((ii / P) mod 8) of its row (P elements per chunk);
//  2. each thread takes one P x P block: it reads the block's P rows, one
//     16-byte chunk each (the swizzle spreads the 8 rows a quarter-warp
//     reads over all 32 banks), transposes it in registers (byte permutes
//     of 16-bit pairs, or plain register moves for 4-byte elements) and
//     writes P output rows, 16 bytes each, 16 threads covering 256
//     contiguous output bytes.
// While a block transposes one tile, the loads of its next tile are in
// flight (registers hold them between the two barriers). Cost: one read
// and one write of every element, O(n).
#include <algorithm>
#include <cstdint>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels_device.cuh"
#include "exec/cuda/kernels_internal.h"

namespace fc::exec::cuda::kern {
namespace {

constexpr int kChunksPerRow = 16;

template <int ES>
struct Tiles {
  static constexpr int kP = 16 / ES;                     // elements per chunk
  static constexpr int kT = kChunksPerRow * kP;          // tile edge in elements
  static constexpr int kChunks = kT * kChunksPerRow;     // chunks per tile
  static constexpr int kPerThread = kChunks / kThreads;  // chunks a thread loads
  static_assert(kChunks % kThreads == 0 && kT / kP * kChunksPerRow == kThreads, "one block per thread");
};

struct Geometry {
  const unsigned char* src = nullptr;
  unsigned char* dst = nullptr;
  uint32_t n0 = 0, n1 = 0, s0 = 0, s2 = 0, s3 = 0;
  IntDiv tiles_x, tiles_y, n2;
  uint32_t n_tiles = 0;
};

__device__ __forceinline__ uint32_t word(const uint4& u, int k) {
  return k == 0 ? u.x : k == 1 ? u.y : k == 2 ? u.z : u.w;
}

// Tile `tile`'s origin: element (i0, j0) of batch b.
struct TileAt {
  uint32_t i0, j0, b;
  uint64_t src_off;  // elements
};
__device__ __forceinline__ TileAt tileAt(const Geometry& g, uint32_t tile, int T) {
  uint32_t tx = 0, ty = 0;
  const uint32_t rest = g.tiles_x.divmod(tile, tx);
  const uint32_t b = g.tiles_y.divmod(rest, ty);
  uint32_t b2 = 0;
  const uint32_t b3 = g.n2.divmod(b, b2);
  TileAt t{tx * T, ty * T, b, 0};
  t.src_off = uint64_t{b2} * g.s2 + uint64_t{b3} * g.s3 + uint64_t{t.i0} * g.s0 + t.j0;
  return t;
}

template <int ES>
__device__ __forceinline__ void loadTile(const Geometry& g, const TileAt& t,
                                         uint4 (&v)[Tiles<ES>::kPerThread]) {
  constexpr int P = Tiles<ES>::kP;
#pragma unroll
  for (int k = 0; k < Tiles<ES>::kPerThread; ++k) {
    const uint32_t e = threadIdx.x + k * kThreads, c = e % kChunksPerRow, ii = e / kChunksPerRow;
    v[k] = make_uint4(0, 0, 0, 0);
    if (t.i0 + ii < g.n0 && t.j0 + c * P < g.n1)
      v[k] = *reinterpret_cast<const uint4*>(g.src + (t.src_off + uint64_t{ii} * g.s0 + c * P) * ES);
  }
}

template <int ES>
__global__ void __launch_bounds__(kThreads) transposeKernel(const Geometry g) {
  using Ti = Tiles<ES>;
  constexpr int P = Ti::kP, T = Ti::kT;
  __shared__ uint4 tile[Ti::kChunks];
  uint4 v[Ti::kPerThread];
  uint32_t cur = blockIdx.x;
  if (cur >= g.n_tiles) return;
  TileAt at = tileAt(g, cur, T);
  loadTile<ES>(g, at, v);
  const uint32_t bi = threadIdx.x % kChunksPerRow, bj = threadIdx.x / kChunksPerRow;
  while (true) {
#pragma unroll
    for (int k = 0; k < Ti::kPerThread; ++k) {
      const uint32_t e = threadIdx.x + k * kThreads, c = e % kChunksPerRow, ii = e / kChunksPerRow;
      tile[ii * kChunksPerRow + (c ^ ((ii / P) & 7u))] = v[k];
    }
    __syncthreads();
    const TileAt now = at;
    const uint32_t next = cur + gridDim.x;
    if (next < g.n_tiles) {  // the next tile's loads in flight during the transpose
      at = tileAt(g, next, T);
      loadTile<ES>(g, at, v);
    }
    if (now.i0 + bi * P < g.n0 && now.j0 + bj * P < g.n1) {
      uint4 r[P];
#pragma unroll
      for (int q = 0; q < P; ++q) r[q] = tile[(bi * P + q) * kChunksPerRow + (bj ^ (bi & 7u))];
      unsigned char* out = g.dst + ((uint64_t{now.b} * g.n1 + now.j0 + bj * P) * g.n0 + now.i0 + bi * P) * ES;
#pragma unroll
      for (int o = 0; o < P; ++o) {
        uint4 w;
        if constexpr (ES == 2) {
          const uint32_t sel = (o & 1) ? 0x7632u : 0x5410u;
          w.x = __byte_perm(word(r[0], o / 2), word(r[1], o / 2), sel);
          w.y = __byte_perm(word(r[2], o / 2), word(r[3], o / 2), sel);
          w.z = __byte_perm(word(r[4], o / 2), word(r[5], o / 2), sel);
          w.w = __byte_perm(word(r[6], o / 2), word(r[7], o / 2), sel);
        } else {
          w = make_uint4(word(r[0], o), word(r[1], o), word(r[2], o), word(r[3], o));
        }
        *reinterpret_cast<uint4*>(out + static_cast<uint64_t>(o) * g.n0 * ES) = w;
      }
    }
    if (next >= g.n_tiles) break;
    cur = next;
    __syncthreads();  // the tile is read before the next one is stored
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

template <int ES>
void launchWith(const TransposeArgs& a, cudaStream_t s) {
  constexpr int T = Tiles<ES>::kT;
  Geometry g;
  g.src = static_cast<const unsigned char*>(a.src);
  g.dst = static_cast<unsigned char*>(a.dst);
  g.n0 = a.n0;
  g.n1 = a.n1;
  g.s0 = a.s0;
  g.s2 = a.s2;
  g.s3 = a.s3;
  const uint32_t tx = (a.n0 + T - 1) / T, ty = (a.n1 + T - 1) / T;
  g.tiles_x = IntDiv(tx);
  g.tiles_y = IntDiv(ty);
  g.n2 = IntDiv(a.n2);
  g.n_tiles = tx * ty * a.n2 * a.n3;
  auto* k = transposeKernel<ES>;
  const int grid = static_cast<int>(std::min<uint64_t>(g.n_tiles, residentBlocks(k, kThreads)));
  k<<<grid, kThreads, 0, s>>>(g);
  FC_CUDA(cudaGetLastError());
}

}  // namespace

bool launchTranspose(const TransposeArgs& a, void* stream) {
  if (a.elem_bytes != 2 && a.elem_bytes != 4) return false;
  const uint32_t per = 16 / a.elem_bytes;
  if (!aligned16(a.src) || !aligned16(a.dst)) return false;
  if (a.n0 % per || a.n1 % per || a.s0 % per || a.s2 % per || a.s3 % per) return false;
  const uint64_t tiles =
      uint64_t{(a.n0 + 16 * per - 1) / (16 * per)} * ((a.n1 + 16 * per - 1) / (16 * per)) * a.n2 * a.n3;
  if (tiles >= (uint64_t{1} << 31)) return false;
  countLaunch(Path::PwTiled);
  auto s = static_cast<cudaStream_t>(stream);
  if (a.elem_bytes == 2)
    launchWith<2>(a, s);
  else
    launchWith<4>(a, s);
  return true;
}

}  // namespace fc::exec::cuda::kern
