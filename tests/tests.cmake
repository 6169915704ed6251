# Test registration.  Files are discovered by name so that adding a test
# never needs an edit here:
#   tests/unit/test_<module>.c        cmocka unit test (core, no MPI)
#   tests/unit/mpi_test_<module>.c    cmocka unit test of driver code (mpi/)
#   tests/integration/test_<name>.sh  shell test of the CLIs (may use mpirun)
#   tests/fuzz/fuzz_<name>.c          fuzz target; its corpus in
#                                     tests/fuzz/corpus/<name>/ is replayed

set(TLM_SHARED_DIR "${CMAKE_SOURCE_DIR}/../shared" CACHE PATH
    "Folder with spec/ and traces/ (tests skip when absent)")

set(TLM_MPI_TEST_ENV
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
    OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1
    OMPI_MCA_btl_vader_single_copy_mechanism=none
    OMPI_MCA_odls_base_sigkill_timeout=0
    ASAN_OPTIONS=detect_leaks=0
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)

# Tools passed to tests by path (empty when a tool is not part of the build).
set(TLM_SYNTH_PATH "")
if(TARGET tlmpi-synth)
  set(TLM_SYNTH_PATH "$<TARGET_FILE:tlmpi-synth>")
endif()

set(TLM_VALGRIND_CMD)
if(TLM_VALGRIND)
  set(TLM_VALGRIND_CMD valgrind -q --error-exitcode=9 --leak-check=full)
endif()

# The XPlane test files' generator (tests/data/README.md), run by the
# tests that need them (found as $TLM_BUILD_DIR/tlm-gen-xplane).
add_executable(tlm-gen-xplane ${CMAKE_SOURCE_DIR}/tests/data/gen_xplane.c)
target_compile_options(tlm-gen-xplane PRIVATE ${TLM_WARN})
target_link_libraries(tlm-gen-xplane PRIVATE tlm_trace)

# Unit tests.
file(GLOB TLM_UNIT_TESTS CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
foreach(_t ${TLM_UNIT_TESTS})
  get_filename_component(_n ${_t} NAME_WE)
  add_executable(${_n} ${_t})
  target_include_directories(${_n} PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit)
  target_compile_options(${_n} PRIVATE ${TLM_WARN})
  target_link_libraries(${_n} PRIVATE tlmcore PkgConfig::CMOCKA)
  add_test(NAME unit_${_n} COMMAND ${TLM_VALGRIND_CMD} $<TARGET_FILE:${_n}>)
  set_tests_properties(unit_${_n} PROPERTIES TIMEOUT 300
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1;TLM_SHARED_DIR=${TLM_SHARED_DIR};TLM_SOURCE_DIR=${CMAKE_SOURCE_DIR};TLM_BUILD_DIR=${CMAKE_BINARY_DIR};TLMPI_SYNTH=${TLM_SYNTH_PATH}"
    SKIP_RETURN_CODE 77)
endforeach()

# Unit tests of driver modules: every mpi/*.c except main.c is linked in.
file(GLOB TLM_MPI_UNIT_TESTS CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/tests/unit/mpi_test_*.c)
if(TLM_MPI_UNIT_TESTS)
  file(GLOB _mpisrc CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/mpi/*.c)
  list(REMOVE_ITEM _mpisrc ${CMAKE_SOURCE_DIR}/mpi/main.c)
  add_library(tlmdriver STATIC ${_mpisrc})
  target_include_directories(tlmdriver PUBLIC ${CMAKE_SOURCE_DIR}/mpi)
  target_compile_options(tlmdriver PRIVATE ${TLM_WARN})
  target_link_libraries(tlmdriver PUBLIC tlmcore MPI::MPI_C hdf5::hdf5)
  foreach(_t ${TLM_MPI_UNIT_TESTS})
    get_filename_component(_n ${_t} NAME_WE)
    add_executable(${_n} ${_t})
    target_compile_options(${_n} PRIVATE ${TLM_WARN})
    target_link_libraries(${_n} PRIVATE tlmdriver PkgConfig::CMOCKA)
    if(_n MATCHES "_allocfail$|_scale$")
      # the project's allocations go through the test's wrappers
      target_link_options(${_n} PRIVATE
        "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free")
    endif()
    if(_n MATCHES "_scale$")
      # the exchange between several processes is what it measures
      add_test(NAME unit_${_n} COMMAND ${MPIEXEC_EXECUTABLE}
               ${MPIEXEC_NUMPROC_FLAG} 4 $<TARGET_FILE:${_n}>)
      set_tests_properties(unit_${_n} PROPERTIES PROCESSORS 2)
    else()
      add_test(NAME unit_${_n} COMMAND $<TARGET_FILE:${_n}>)
    endif()
    set_tests_properties(unit_${_n} PROPERTIES TIMEOUT 300
      ENVIRONMENT "${TLM_MPI_TEST_ENV};TLM_SHARED_DIR=${TLM_SHARED_DIR}")
    if(_n MATCHES "_allocfail$")
      # ~6,000 runs of the report and the analysis: 220-230 s alone under
      # ASan+UBSan on the 2-core VM, over 300 s beside the other tests
      set_tests_properties(unit_${_n} PROPERTIES TIMEOUT 900)
    endif()
  endforeach()
endif()

# Integration tests (shell).  Each gets the tools and mpiexec via env.
file(GLOB TLM_INTEGRATION_TESTS CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/tests/integration/test_*.sh)
foreach(_t ${TLM_INTEGRATION_TESTS})
  get_filename_component(_n ${_t} NAME_WE)
  add_test(NAME integration_${_n} COMMAND bash ${_t})
  set_tests_properties(integration_${_n} PROPERTIES TIMEOUT 600
    PROCESSORS 2 SKIP_RETURN_CODE 77
    ENVIRONMENT "${TLM_MPI_TEST_ENV};TLMPI=$<TARGET_FILE:tlmpi>;TLMPI_SYNTH=${TLM_SYNTH_PATH};TLM_FAULT_LIB=$<TARGET_FILE:tlm_fault>;MPIEXEC=${MPIEXEC_EXECUTABLE};TLM_SHARED_DIR=${TLM_SHARED_DIR};TLM_SOURCE_DIR=${CMAKE_SOURCE_DIR};TLM_BUILD_DIR=${CMAKE_BINARY_DIR};TLM_WORK_DIR=${CMAKE_BINARY_DIR}/itest/${_n}")
endforeach()

# Issue 21's "first contact" section (`ctest -L first_contact`): what a new
# user meets first.  Other tests join it by name here.
set(TLM_FIRST_CONTACT_TESTS
    integration_test_readme integration_test_install integration_test_help
    integration_test_tlmpi_run integration_test_progress
    unit_mpi_test_progress integration_test_first_contact_gpu_units
    integration_test_mpi_steps unit_test_steps unit_test_gpu
    unit_test_jobinfo)
foreach(_t ${TLM_FIRST_CONTACT_TESTS})
  if(TEST ${_t})
    set_property(TEST ${_t} APPEND PROPERTY LABELS first_contact)
  endif()
endforeach()

# Fuzz targets: always built as corpus-replay programs; with clang and
# TLM_BUILD_FUZZ also as libFuzzer binaries (<name>_libfuzzer), with the
# core library instrumented for coverage.
if(TLM_BUILD_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  # undefined behaviour aborts: libFuzzer then reports it as a crash
  foreach(_l ${TLM_LAYERS})
    get_target_property(_ltype ${_l} TYPE)
    if(_ltype STREQUAL "INTERFACE_LIBRARY")
      continue() # a layer without sources yet: nothing to instrument
    endif()
    target_compile_options(${_l} PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                                         -fno-sanitize-recover=undefined)
  endforeach()
  target_link_options(tlmcore INTERFACE -fsanitize=address,undefined)
endif()
file(GLOB TLM_FUZZ_TARGETS CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
foreach(_t ${TLM_FUZZ_TARGETS})
  get_filename_component(_n ${_t} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" _short ${_n})
  add_executable(${_n}_replay ${_t} ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.c)
  target_compile_options(${_n}_replay PRIVATE ${TLM_WARN})
  target_link_libraries(${_n}_replay PRIVATE tlmcore)
  if(_short STREQUAL "runfile")
    # the run-file reader is driver code (HDF5): mpi/*.c but main.c
    target_link_libraries(${_n}_replay PRIVATE tlmdriver)
  endif()
  add_test(NAME fuzz_replay_${_short}
    COMMAND $<TARGET_FILE:${_n}_replay> ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${_short})
  set_tests_properties(fuzz_replay_${_short} PROPERTIES TIMEOUT 300
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
  if(TLM_BUILD_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    add_executable(${_n}_libfuzzer ${_t})
    target_compile_options(${_n}_libfuzzer PRIVATE -fsanitize=fuzzer,address,undefined
                                                  -fno-sanitize-recover=undefined)
    target_link_options(${_n}_libfuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${_n}_libfuzzer PRIVATE tlmcore)
    if(_short STREQUAL "runfile")
      target_link_libraries(${_n}_libfuzzer PRIVATE tlmdriver)
      target_compile_options(tlmdriver PRIVATE
        -fsanitize=fuzzer-no-link,address,undefined)
    endif()
  endif()
endforeach()

# The fault-injection library of the output tests (LD_PRELOAD), built
# without sanitizers: it is preloaded into instrumented and plain
# processes alike.
add_library(tlm_fault SHARED ${CMAKE_SOURCE_DIR}/tests/fault/tlm_fault.c)
target_compile_options(tlm_fault PRIVATE ${TLM_WARN} -fno-sanitize=all)
target_link_options(tlm_fault PRIVATE -fno-sanitize=all)
target_link_libraries(tlm_fault PRIVATE ${CMAKE_DL_LIBS})
