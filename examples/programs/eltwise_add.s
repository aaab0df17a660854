# DMA-heavy stream: Y = clip(A + B) for two int8 tensors of C chunks x R tiles,
# the residual add of a quantized network. Each chunk is loaded twice into the
# accumulator (LOAD acc8 sign-extends int8 tiles), added on the ALU and stored:
# 3 tile transfers per 1 ALU row, so the memory port is the bottleneck.
# Chunks alternate between two accumulator halves so that storing chunk c
# overlaps loading chunk c+1 (compute->store and store->compute tokens).
.equ R, 64                 # tiles per chunk
.equ C, 16                 # chunks

.random A 0x100000 i8 count=C*R*OUT_TILE_BYTES seed=21 min=-64 max=63
.random B 0x200000 i8 count=C*R*OUT_TILE_BYTES seed=22 min=-64 max=63
.equ Y, 0x300000

# acc layout per half h: A rows at h*2R, B rows at h*2R + R.
.uops add 0x1000
.for h, 0, 2
  dst=h*2*R src=h*2*R+R
.endfor
.end

LOAD mem=uop sram=0 dram=add y_size=1 x_size=add.count x_stride=add.count
.for c, 0, C
LOAD mem=acc8 sram=(c%2)*2*R dram=A+c*R*OUT_TILE_BYTES y_size=1 x_size=R x_stride=R pop_next=(c>=2)
LOAD mem=acc8 sram=(c%2)*2*R+R dram=B+c*R*OUT_TILE_BYTES y_size=1 x_size=R x_stride=R
ALU op=add uop_bgn=c%2 uop_end=c%2+1 iter_out=R iter_in=1 dst_out=1 src_out=1
ALU op=clip use_imm imm=127 uop_bgn=c%2 uop_end=c%2+1 iter_out=R iter_in=1 dst_out=1 push_next
STORE mem=out sram=(c%2)*2*R dram=Y+c*R*OUT_TILE_BYTES y_size=1 x_size=R x_stride=R pop_prev push_prev=(c+2<C)|(c==C-1)
.endfor
FINISH pop_next
