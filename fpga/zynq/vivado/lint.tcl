# Lints the Vivado scripts without Vivado (run by Yosys' Tcl interpreter:
# `yosys -c fpga/zynq/vivado/lint.tcl`): each script parses into complete
# commands, and every command it calls at top level is either Tcl's own or one
# of the Vivado commands listed here (a typo in a command name fails).
set vivado_cmds {
  create_project add_files set_property get_files current_fileset update_compile_order
  create_bd_design create_bd_cell apply_bd_automation get_bd_intf_pins connect_bd_net get_bd_pins
  create_bd_port get_bd_ports assign_bd_address get_bd_addr_segs get_bd_addr_spaces validate_bd_design
  save_bd_design generate_target make_wrapper launch_runs wait_on_run get_runs open_run
  report_utilization report_timing_summary write_hw_platform write_hwdef get_ports
}
set dir [file dirname [info script]]
set failures 0
foreach f [list $dir/build.tcl $dir/pynq-z1.xdc] {
  set fh [open $f]
  set text [read $fh]
  close $fh
  if {![info complete $text]} {
    puts "$f: incomplete command (unbalanced braces or quotes)"
    incr failures
    continue
  }
  set cmd ""
  foreach line [split $text "\n"] {
    append cmd $line "\n"
    if {![info complete $cmd]} continue
    set c [string trim $cmd]
    set cmd ""
    if {$c eq "" || [string index $c 0] eq "#"} continue
    set name [lindex [regexp -inline {^[A-Za-z_0-9:]+} $c] 0]
    if {$name ne "" && [lsearch -exact $vivado_cmds $name] < 0 && [llength [info commands $name]] == 0} {
      puts "$f: unknown command '$name'"
      incr failures
    }
  }
}
if {$failures > 0} { exit 1 }
puts "vivado scripts: ok"
