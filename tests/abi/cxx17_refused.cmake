# scoria.hpp needs C++20: under C++17 it must stop the build with its own
# #error, not with a page of template errors.
#   cmake -DCXX=.. -DINCLUDE=.. -DWORK=.. -P cxx17_refused.cmake
file(WRITE ${WORK}/uses_hpp.cpp "#include <scoria/scoria.hpp>\nint main() { return 0; }\n")
execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -I${INCLUDE} ${WORK}/uses_hpp.cpp
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "scoria.hpp compiled as C++17; it must refuse with #error")
endif()
string(FIND "${err}" "scoria.hpp needs C++20 (-std=c++20, or CMake's cxx_std_20)" at)
if(at EQUAL -1)
  message(FATAL_ERROR "C++17 failed without scoria.hpp's message:\n${err}")
endif()
string(REGEX MATCHALL "error:" errors "${err}")
list(LENGTH errors n)
if(n GREATER 1)
  message(FATAL_ERROR "C++17 gave ${n} errors, not the one #error:\n${err}")
endif()
# And scoria.h alone serves C++17 (and C++11).
foreach(std c++11 c++17)
  file(WRITE ${WORK}/uses_h.cpp "#include <scoria/scoria.h>\nint main() { return sizeof(scoria_descriptor) > 0 ? 0 : 1; }\n")
  execute_process(COMMAND ${CXX} -std=${std} -Wall -Wextra -Werror -fsyntax-only -I${INCLUDE}
                          ${WORK}/uses_h.cpp RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "scoria.h does not compile as ${std}:\n${err}")
  endif()
endforeach()
