# PYNQ-Z1: the accelerator has no pins of its own (the PS clocks it and reaches
# it over AXI); its interrupt is also shown on LD0.
set_property -dict {PACKAGE_PIN R14 IOSTANDARD LVCMOS33} [get_ports led_irq]
