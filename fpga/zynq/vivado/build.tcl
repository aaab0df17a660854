# Builds the Tessera accelerator for a Zynq-7020 board (PYNQ-Z1 by default)
# with Vivado, batch mode, on the user's machine (docs/fpga.md; Vivado is not
# available where Tessera is developed, so this script has not been run):
#
#   tessera isa verilog -c configs/pynq-z1.json -o build/fpga/zynq/tessera_cfg.vh
#   vivado -mode batch -source fpga/zynq/vivado/build.tcl -tclargs \
#       <repo> <build/fpga/zynq> <bytes_per_cycle> <clock_mhz> [part] [xdc]
#
# Project, block design (PS7; the accelerator's AXI4 master on S_AXI_HP0, its
# register window on M_AXI_GP0 at 0x43C00000, its interrupt on IRQ_F2P[0],
# FCLK_CLK0 at the config's clock), constraints, synthesis, implementation,
# bitstream, and the hardware handoff: <out>/tessera.bit, <out>/tessera.hwh
# (PYNQ's overlay description) and <out>/tessera.xsa (Vitis; older versions:
# tessera.hdf). Only commands present since Vivado 2017 are used; the few
# that changed names are chosen by version.
if {[llength $argv] < 4} {
  puts "usage: build.tcl <repo> <out> <bytes_per_cycle> <clock_mhz> \[part\] \[xdc\]"
  exit 2
}
lassign $argv repo out bytes clock_mhz part xdc
if {$part eq ""} { set part xc7z020clg400-1 }
if {$xdc eq ""} { set xdc $repo/fpga/zynq/vivado/pynq-z1.xdc }
set dw [expr {8 * $bytes}]
file mkdir $out

create_project -force tessera $out/project -part $part
# The RTL: SystemVerilog sources, the Verilog wrapper, the generated header.
set sv [glob $repo/hw/rtl/*.v]
add_files -norecurse $sv
set_property file_type SystemVerilog [get_files $sv]
add_files -norecurse $repo/fpga/zynq/tsr_accel_zynq.v $out/tessera_cfg.vh
set_property file_type {Verilog Header} [get_files $out/tessera_cfg.vh]
set_property include_dirs [list $out] [current_fileset]
set_property verilog_define [list TSR_ZYNQ_DW=$dw] [current_fileset]
add_files -fileset constrs_1 -norecurse $xdc
update_compile_order -fileset sources_1

# The block design.
create_bd_design tessera
set ps [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7 ps7]
apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 \
    -config {make_external "FIXED_IO, DDR" apply_board_preset "1" Master "Disable" Slave "Disable"} $ps
set_property -dict [list CONFIG.PCW_USE_S_AXI_HP0 {1} CONFIG.PCW_S_AXI_HP0_DATA_WIDTH {64} \
    CONFIG.PCW_USE_M_AXI_GP0 {1} CONFIG.PCW_USE_FABRIC_INTERRUPT {1} CONFIG.PCW_IRQ_F2P_INTR {1} \
    CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ $clock_mhz] $ps
set acc [create_bd_cell -type module -reference tsr_accel_zynq accel]
# The AXI connections (interconnects, the reset block and the clock nets by automation).
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
    -config {Master "/ps7/M_AXI_GP0" Clk "Auto"} [get_bd_intf_pins accel/s_axi_ctrl]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
    -config {Master "/accel/m_axi_dram" Clk "Auto"} [get_bd_intf_pins ps7/S_AXI_HP0]
connect_bd_net [get_bd_pins accel/irq] [get_bd_pins ps7/IRQ_F2P]
create_bd_port -dir O led_irq
connect_bd_net [get_bd_pins accel/irq] [get_bd_ports led_irq]
assign_bd_address
# The register window at 0x43C00000 (the driver's --fpga-regs-addr for /dev/mem; a UIO node otherwise).
set seg [get_bd_addr_segs -of_objects [get_bd_addr_spaces ps7/Data] -filter {NAME =~ "*accel*"}]
if {$seg ne ""} { set_property -dict [list offset 0x43C00000 range 4K] $seg }
validate_bd_design
save_bd_design

set bd [get_files tessera.bd]
generate_target all $bd
set wrapper [make_wrapper -files $bd -top]
add_files -norecurse $wrapper
set_property top tessera_wrapper [current_fileset]
update_compile_order -fileset sources_1

launch_runs synth_1 -jobs 4
wait_on_run synth_1
launch_runs impl_1 -to_step write_bitstream -jobs 4
wait_on_run impl_1
if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} {
  puts "ERROR: implementation did not finish"
  exit 1
}
open_run impl_1
report_utilization -file $out/utilization.rpt
report_timing_summary -file $out/timing.rpt

# The handoff.
file copy -force [glob $out/project/tessera.runs/impl_1/*.bit] $out/tessera.bit
set hwh [glob -nocomplain $out/project/tessera.gen/sources_1/bd/tessera/hw_handoff/tessera.hwh \
             $out/project/tessera.srcs/sources_1/bd/tessera/hw_handoff/tessera.hwh]
if {[llength $hwh] > 0} { file copy -force [lindex $hwh 0] $out/tessera.hwh }
if {[llength [info commands write_hw_platform]] > 0} {
  write_hw_platform -fixed -include_bit -force -file $out/tessera.xsa
} else {
  write_hwdef -force -file $out/tessera.hdf
}
puts "tessera: bitstream and handoff in $out"
