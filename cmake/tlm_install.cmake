# Install rules and the Debian package (cpack -G DEB), included by the top
# CMakeLists.txt.  The layout follows Debian's for the prefix (default
# /usr/local, /usr in the package):
#   bin/tlmpi, bin/tlmpi-mpi (its MPI driver), bin/tlmpi-synth, bin/tlmpi-run, bin/tlmpi-tracelens
#   lib/python3/dist-packages/tlmpi_h5.py (and every scripts/tlmpi_*.py):
#       the notebook loader, importable by Debian's python3 from /usr and
#       /usr/local without PYTHONPATH
#   share/tlmpi/slurm/        sbatch templates
#   share/doc/tlmpi/          README.md and docs/*.md
#   share/man/man1/tlmpi.1    the man page (docs/tlmpi.1), also as
#                             tlmpi-run.1, tlmpi-tracelens.1, tlmpi-synth.1
#   share/doc/tlmpi/img/      the images the docs show (docs/img/*.png)
set(TLM_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
    "Where the Python loader goes, relative to the prefix")

install(TARGETS tlmpi tlmpi-mpi tlmpi-synth RUNTIME DESTINATION bin)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/scripts/tlmpi-run DESTINATION bin)
# TraceLens's perf-report command line -> tlmpi report (docs/cli.md)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/scripts/tlmpi-tracelens DESTINATION bin)
file(GLOB TLM_PY_MODULES CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/scripts/tlmpi_*.py)
install(FILES ${TLM_PY_MODULES} DESTINATION ${TLM_INSTALL_PYTHONDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/slurm/ DESTINATION share/tlmpi/slurm
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/tlmpi)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/tlmpi
        FILES_MATCHING PATTERN "*.md")
install(FILES ${CMAKE_SOURCE_DIR}/docs/tlmpi.1 DESTINATION share/man/man1)
# the same page under each companion program's name (`man -l` needs a
# whole page: it resolves no .so link outside a man tree)
foreach(_p tlmpi-mpi tlmpi-run tlmpi-tracelens tlmpi-synth)
  install(FILES ${CMAKE_SOURCE_DIR}/docs/tlmpi.1 DESTINATION share/man/man1
          RENAME ${_p}.1)
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/img/ DESTINATION share/doc/tlmpi/img
        FILES_MATCHING PATTERN "*.png")

# ---------------------------------------------------------------- cpack
set(CPACK_PACKAGE_NAME tlmpi)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "MPI analyzer of PyTorch profiler traces of distributed jobs")
set(CPACK_PACKAGE_CONTACT "tlmpi maintainers <tlmpi@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Debian 12 names.  mpirun (openmpi-bin) is what tlmpi-run starts; the
# libraries the binaries link (Open MPI, parallel HDF5, zlib, libc) come
# with their versions from dpkg-shlibdeps, or from this list without it.
find_program(TLM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TLM_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "openmpi-bin, libopenmpi3, libhdf5-openmpi-103-1, zlib1g, libc6")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-h5py, python3-pandas")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-wlm")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "tlmpi reads the PyTorch profiler (Kineto) traces of a distributed job, one\n\
per rank, in parallel under MPI: per-trace op, kernel and roofline tables\n\
(TraceLens's), collectives matched across ranks (latency, bandwidth, skew,\n\
stragglers, clock offsets), one HDF5 file for notebooks (module tlmpi_h5)\n\
and Markdown/CSV reports.")
set(CPACK_GENERATOR DEB)
include(CPack)
