# Assembler diagnostics through the CLI: file:line:column and what was expected.
# RUN: not %tessera asm %s -c %configs/default.json -o %t.bin 2>&1 | FileCheck %s
# CHECK: tessera: error: {{.*}}asm-errors.s:[[@LINE+1]]:14: unknown field 'sizes' for LOAD; expected one of: pop_prev
LOAD mem=inp sizes=3
