# Turns a file into a C++ source defining `const char NAME[]` and `NAME_size`
# (so the search page ships inside the fixgraph binary).
# Usage: cmake -DIN=file -DOUT=file.cc -DNAME=symbol -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," body "${hex}")
string(REGEX REPLACE "(('\\\\x[0-9a-f][0-9a-f]',){32})" "\\1\n" body "${body}")
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by cli/web/embed.cmake; do not edit.\n"
  "#include <cstddef>\n"
  "namespace fixgraph::cli {\n"
  "extern const char ${NAME}[];\n"
  "extern const std::size_t ${NAME}_size;\n"
  "const char ${NAME}[] = {\n${body}'\\0'};\n"
  "const std::size_t ${NAME}_size = ${size};\n"
  "}  // namespace fixgraph::cli\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
