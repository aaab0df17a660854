# The same product as matmul_double_buffered.s, serialized: every chunk is
# loaded, computed and stored before the next chunk's load starts, and one
# half of each scratchpad suffices. Compute opens each chunk c >= 1 with a
# no-op (LOAD mem=uop y_size=0) that waits for store c-1 and only then lets
# the load module fetch chunk c.
.equ KB, 4
.equ NB, 4
.equ R, 8
.equ C, 8

.random X 0x100000 i8 count=C*R*KB*BATCH*BLOCK_IN seed=11
.random W 0x200000 i8 count=NB*KB*BLOCK_OUT*BLOCK_IN seed=12
.equ Y, 0x300000

.uops gemm 0x1000
.for nb, 0, NB
  dst=nb src=0 wgt=nb*KB
.endfor
.end
.uops alu 0x1100
  dst=0
.end

LOAD mem=uop sram=0 dram=gemm y_size=1 x_size=gemm.count x_stride=gemm.count
LOAD mem=uop sram=gemm.count dram=alu y_size=1 x_size=alu.count x_stride=alu.count
LOAD mem=wgt sram=0 dram=W y_size=NB x_size=KB x_stride=KB
.for c, 0, C
LOAD mem=uop sram=0 dram=0 y_size=0 x_size=0 x_stride=0 pop_next=(c>=1) push_prev=(c>=1)
LOAD mem=inp sram=0 dram=X+c*R*KB*INP_TILE_BYTES y_size=R x_size=KB x_stride=KB pop_next=(c>=1) push_next
GEMM reset uop_bgn=0 uop_end=NB iter_out=R iter_in=1 dst_out=NB pop_prev
GEMM uop_bgn=0 uop_end=NB iter_out=R iter_in=KB dst_out=NB src_out=KB src_in=1 wgt_in=1
ALU op=shr use_imm imm=10 uop_bgn=NB uop_end=NB+1 iter_out=R*NB iter_in=1 dst_out=1
ALU op=clip use_imm imm=127 uop_bgn=NB uop_end=NB+1 iter_out=R*NB iter_in=1 dst_out=1 push_next
STORE mem=out sram=0 dram=Y+c*R*NB*OUT_TILE_BYTES y_size=R x_size=NB x_stride=NB pop_prev push_prev
.endfor
FINISH pop_next
