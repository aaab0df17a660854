# Y = requant(X . W^T) for C chunks of R input rows, with W resident in the
# weight scratchpad: a double-buffered software pipeline. Chunk c uses half
# b = c % 2 of the input and accumulator scratchpads, so loading chunk c+1
# overlaps computing chunk c and storing chunk c-1. Tokens:
#   load c (c >= 2) waits for compute c-2 to release input half b (compute->load);
#   compute c waits for load c (load->compute) and, c >= 2, for store c-2 to
#   release accumulator half b (store->compute); store c waits for compute c.
# matmul_serialized.s computes the same Y with no overlap; compare their cycles
# with `tessera exec ... --target sim`.
.equ KB, 4                 # K / BLOCK_IN
.equ NB, 4                 # N / BLOCK_OUT
.equ R, 8                  # input rows per chunk
.equ C, 8                  # chunks

.random X 0x100000 i8 count=C*R*KB*BATCH*BLOCK_IN seed=11
.random W 0x200000 i8 count=NB*KB*BLOCK_OUT*BLOCK_IN seed=12
.equ Y, 0x300000

# GEMM uops for half b: acc[b*R*NB + m*NB + nb] += inp[b*R*KB + m*KB + kb] . wgt[nb*KB + kb]
.uops gemm 0x1000
.for b, 0, 2
.for nb, 0, NB
  dst=b*R*NB+nb src=b*R*KB wgt=nb*KB
.endfor
.endfor
.end
# ALU uops (entries 2*NB, 2*NB+1): the first accumulator row of each half.
.uops alu 0x1100
  dst=0
  dst=R*NB
.end

LOAD mem=uop sram=0 dram=gemm y_size=1 x_size=gemm.count x_stride=gemm.count
LOAD mem=uop sram=gemm.count dram=alu y_size=1 x_size=alu.count x_stride=alu.count
LOAD mem=wgt sram=0 dram=W y_size=NB x_size=KB x_stride=KB
LOAD mem=inp sram=0 dram=X y_size=R x_size=KB x_stride=KB push_next
.for c, 0, C
# load chunk c+1 (the last iteration loads nothing: y_size=0 keeps the token flow
# uniform; its token goes to FINISH, which every instruction must be ordered before)
LOAD mem=inp sram=((c+1)%2)*R*KB dram=X+(c+1)*R*KB*INP_TILE_BYTES*(c+1<C) y_size=R*(c+1<C) x_size=KB x_stride=KB pop_next=(c+1>=2)*(c+1<C) push_next
# compute chunk c on half c%2
GEMM reset uop_bgn=(c%2)*NB uop_end=(c%2+1)*NB iter_out=R iter_in=1 dst_out=NB pop_prev pop_next=(c>=2)
GEMM uop_bgn=(c%2)*NB uop_end=(c%2+1)*NB iter_out=R iter_in=KB dst_out=NB src_out=KB src_in=1 wgt_in=1 push_prev=(c+2<C)
ALU op=shr use_imm imm=10 uop_bgn=2*NB+c%2 uop_end=2*NB+c%2+1 iter_out=R*NB iter_in=1 dst_out=1
ALU op=clip use_imm imm=127 uop_bgn=2*NB+c%2 uop_end=2*NB+c%2+1 iter_out=R*NB iter_in=1 dst_out=1 push_next
# store chunk c
STORE mem=out sram=(c%2)*R*NB dram=Y+c*R*NB*OUT_TILE_BYTES y_size=R x_size=NB x_stride=NB pop_prev push_prev=(c+2<C)|(c==C-1)
.endfor
FINISH pop_prev pop_next
