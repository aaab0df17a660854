# A missing dependency token is reported as a race with both instructions.
# RUN: not %tessera exec %s -c %configs/default.json 2>&1 | FileCheck %s
# CHECK: tessera: error: {{.*}}exec-faults.s: device {{.*}} failed: token error at instruction 2: race on inp entry 0: instruction 2 (GEMM {{.*}}) on the compute module reads it, but the write by instruction 0 (LOAD {{.*}}) on the load module is not ordered before it by a dependency token
.uops k 0x1000
  dst=0 src=0 wgt=0
.end
LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1
LOAD mem=uop sram=0 dram=k y_size=1 x_size=1 x_stride=1
GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1
FINISH
