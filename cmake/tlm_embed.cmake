# Turns a file into a C source holding its bytes (cmake -DIN=... -DOUT=...
# -DSYM=... -P tlm_embed.cmake): scripts/tlmpi_replay.py inside the
# replay layer, so that `tlmpi replay` copies the runner it was built
# with, byte for byte, wherever it is installed.
file(READ "${IN}" _hex HEX)
string(LENGTH "${_hex}" _n)
math(EXPR _bytes "${_n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _arr "${_hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" _arr "${_arr}")
file(WRITE "${OUT}.tmp"
  "/* generated from ${IN} by cmake/tlm_embed.cmake: do not edit */\n"
  "#include <stddef.h>\n"
  "const unsigned char ${SYM}[${_bytes} + 1] = {\n${_arr}0x00};\n"
  "const size_t ${SYM}_len = ${_bytes};\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp"
                        "${OUT}")
file(REMOVE "${OUT}.tmp")
