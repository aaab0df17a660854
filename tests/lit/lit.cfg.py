# lit configuration for Tessera's text-in/text-out tests (tools, IR passes).
# Substitutions: %tessera (the CLI), %configs (configs/), %examples, FileCheck.
import os
import lit.formats

config.name = "tessera"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".s", ".test", ".tir", ".json"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessera_obj_root, "tests", "lit")

config.substitutions.append(("%tessera", config.tessera_bin))
config.substitutions.append(("%configs", os.path.join(config.tessera_src_root, "configs")))
config.substitutions.append(("%examples", os.path.join(config.tessera_src_root, "examples")))
config.substitutions.append(("%python", config.tessera_python))
config.substitutions.append(("%models", os.path.join(config.tessera_obj_root, "models")))
config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, config.environment.get("PATH", "/usr/bin:/bin")])
