# Writes the shell completions and man pages that the fusecheck CLI
# generates from its own definition (tools/fusecheck/generate.cpp) into OUT:
#   OUT/bash-completion/completions/fusecheck, OUT/zsh/vendor-completions/_fusecheck,
#   OUT/man/man1/fusecheck.1 and fusecheck-<subcommand>.1
#
#   cmake -DCLI=build/tools/fusecheck -DOUT=build/tools/share -P cmake/generate_cli_docs.cmake
# A sanitized CLI keeps its IR until exit on purpose: leak checking is off here.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
file(MAKE_DIRECTORY "${OUT}/bash-completion/completions" "${OUT}/zsh/vendor-completions" "${OUT}/man/man1")
execute_process(COMMAND "${CLI}" --generate-completion bash OUTPUT_FILE "${OUT}/bash-completion/completions/fusecheck"
                RESULT_VARIABLE rc1)
execute_process(COMMAND "${CLI}" --generate-completion zsh OUTPUT_FILE "${OUT}/zsh/vendor-completions/_fusecheck"
                RESULT_VARIABLE rc2)
file(GLOB old "${OUT}/man/man1/*.1")
if(old)
  file(REMOVE ${old})
endif()
execute_process(COMMAND "${CLI}" --generate-man "${OUT}/man/man1" RESULT_VARIABLE rc3)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT rc3 EQUAL 0)
  message(FATAL_ERROR "fusecheck could not generate its completions / man pages (${rc1} ${rc2} ${rc3})")
endif()
file(TOUCH "${OUT}/generated.stamp")
