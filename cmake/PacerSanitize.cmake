# -DPACER_SANITIZE=address,undefined (or thread): every C/C++ target built with those sanitizers, so the tests run
# under them (scripts/sanitize). ASan and TSan cannot share a build; UBSan goes with ASan. A UBSan finding aborts the
# test instead of scrolling past. CUDA code is left alone (nvcc does not take -fsanitize).
set(PACER_SANITIZE "" CACHE STRING "Sanitizers for every target: address,undefined | thread | empty for none")
if(PACER_SANITIZE)
  if(NOT PACER_SANITIZE MATCHES "^(address|undefined|address,undefined|undefined,address|thread)$")
    message(FATAL_ERROR "PACER_SANITIZE must be address,undefined or thread, got '${PACER_SANITIZE}'")
  endif()
  set(flags -fsanitize=${PACER_SANITIZE} -fno-omit-frame-pointer -g)
  if(PACER_SANITIZE MATCHES "undefined")
    # GCC's "undefined" leaves out float-cast-overflow (clang's has it): a double past an int's range converted to
    # it is undefined, and that is what fuzz_chrome_import found (a tensor layer of 1e300 in an imported trace).
    list(APPEND flags -fsanitize=float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${flags}>")
  add_link_options(-fsanitize=${PACER_SANITIZE})
endif()
