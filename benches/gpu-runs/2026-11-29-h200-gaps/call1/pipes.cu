// Which pipe does HMNMX2 / VHMNMX issue on? Throughput of independent ops.
#include <cstdio>
#include <cuda_runtime.h>
#define N_ACC 8
template <int MODE>
__global__ void k(unsigned *out, int iters, unsigned seed) {
  unsigned a[N_ACC], b[N_ACC], c[N_ACC];
  for (int j = 0; j < N_ACC; j++) { a[j] = seed * (threadIdx.x + j); b[j] = seed ^ (j * 0x01010101u + threadIdx.x); c[j] = a[j] + 17 * j; }
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < N_ACC; j++) {
      if (MODE == 0 || MODE == 2 || MODE == 3) // VIMNMX3 (3-input s16x2 max)
        asm volatile("{.reg .b32 t; max.s16x2 t, %0, %1; max.s16x2 %0, t, %2;}" : "+r"(a[j]) : "r"(b[j]), "r"(c[j]));
      if (MODE == 1 || MODE == 2) // HMNMX2
        asm volatile("max.f16x2 %0, %0, %1;" : "+r"(b[j]) : "r"(c[j]));
      if (MODE == 3 || MODE == 4) // VHMNMX (3-input f16x2 max)
        asm volatile("{.reg .b32 t; max.f16x2 t, %0, %1; max.f16x2 %0, t, %2;}" : "+r"(b[j]) : "r"(c[j]), "r"(a[j]));
      if (MODE == 5 || MODE == 6) // IMAD
        asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(c[j]) : "r"(b[j]), "r"(a[j]));
      if (MODE == 7 || MODE == 8) // 32-bit add of an immediate
        asm volatile("add.u32 %0, %0, 0xfff4fff5;" : "+r"(c[j]));
      if (MODE == 8)
        asm volatile("{.reg .b32 t; max.s16x2 t, %0, %1; max.s16x2 %0, t, %2;}" : "+r"(a[j]) : "r"(b[j]), "r"(c[j]));
      if (MODE == 6)
        asm volatile("{.reg .b32 t; max.s16x2 t, %0, %1; max.s16x2 %0, t, %2;}" : "+r"(a[j]) : "r"(b[j]), "r"(c[j]));
    }
  }
  unsigned s = 0;
  for (int j = 0; j < N_ACC; j++) s ^= a[j] ^ b[j] ^ c[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
const char *names[] = {"VIMNMX3 x8", "HMNMX2 x8", "VIMNMX3 x8 + HMNMX2 x8", "VIMNMX3 x8 + VHMNMX x8", "VHMNMX x8", "IMAD x8", "IMAD x8 + VIMNMX3 x8", "add imm x8", "add imm x8 + VIMNMX3 x8"};
template <int M> float run(unsigned *out, int blocks, int iters) {
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  k<M><<<blocks, 256>>>(out, iters, 3); cudaDeviceSynchronize();
  cudaEventRecord(e0); k<M><<<blocks, 256>>>(out, iters, 5); cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1); return ms;
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int blocks = sms * 8, iters = 1 << 14;
  unsigned *out; cudaMalloc(&out, blocks * 256 * 4);
  float ms[9] = {run<0>(out, blocks, iters), run<1>(out, blocks, iters), run<2>(out, blocks, iters), run<3>(out, blocks, iters), run<4>(out, blocks, iters), run<5>(out, blocks, iters), run<6>(out, blocks, iters), run<7>(out, blocks, iters), run<8>(out, blocks, iters)};
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  for (int m = 0; m < 9; m++) {
    double warp_instr_per_smsp = (double)blocks * 8 * iters * 8 / (sms * 4); // per op group of 8
    double cycles = ms[m] * 1e-3 * clk * 1e3;
    printf("%-28s %8.3f ms  cycles per 8-op group per SMSP-warp-iteration: %.2f\n", names[m], ms[m], cycles / (warp_instr_per_smsp / 8));
  }
  return 0;
}
