# GEMM-heavy stream, written for any config: C = A . B^T with A = M x KB
# input tiles, B = NB x KB weight tiles, computed REPEAT times over the same
# scratchpad contents. KB x NB fills the weight scratchpad, M x KB the input
# scratchpad (capped so that M x NB fits the accumulator). On the default
# config: M = 64, KB = NB = 32, 16.8 M MACs per GEMM. Used by bench/ and as
# the GEMM-bound example in docs/performance.md.
.equ KB, 1 << (log2(WGT_ENTRIES) / 2)
.equ NB, WGT_ENTRIES / KB
.equ M, min(INP_ENTRIES / KB, ACC_ENTRIES / NB)
.equ REPEAT, 8

.random A 0x100000 i8 count=M*KB*BATCH*BLOCK_IN seed=1
.random B 0x800000 i8 count=NB*KB*BLOCK_OUT*BLOCK_IN seed=2

# One uop per output block: acc[m*NB + nb] += inp[m*KB + kb] . wgt[nb*KB + kb]
.uops cols 0x1000
.for nb, 0, NB
  dst=nb src=0 wgt=nb*KB
.endfor
.end

LOAD mem=inp sram=0 dram=A y_size=M x_size=KB x_stride=KB
LOAD mem=wgt sram=0 dram=B y_size=NB x_size=KB x_stride=KB push_next
LOAD mem=uop sram=0 dram=cols y_size=1 x_size=NB x_stride=NB
GEMM reset uop_bgn=0 uop_end=NB iter_out=M iter_in=1 dst_out=NB
.for r, 0, REPEAT
GEMM uop_bgn=0 uop_end=NB iter_out=M iter_in=KB dst_out=NB src_out=KB src_in=1 wgt_in=1 pop_prev=(r==0)
.endfor
ALU op=shr use_imm imm=12 uop_bgn=0 uop_end=NB iter_out=M iter_in=1 dst_out=NB
ALU op=clip use_imm imm=127 uop_bgn=0 uop_end=NB iter_out=M iter_in=1 dst_out=NB push_next
STORE mem=out sram=0 dram=0xC00000 y_size=M x_size=NB x_stride=NB pop_prev push_prev
FINISH pop_next
