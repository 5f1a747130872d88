# The Debian package: `cmake --build --preset dev --target package` (or
# `cpack -G DEB` in the build directory) makes build/xferbench_<version>_<arch>.deb
# from the install rules (docs/building.md lists what goes where).
# Its dependencies come from dpkg-shlibdeps (dpkg-dev) on the built binary.

# README and docs/ (with the images they show) as the package's documentation.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(XFERBENCH_PACKAGE_CONTACT "xferbench maintainers <maintainers@users.noreply.a-seed-c90636db.example>"
    CACHE STRING "Maintainer of the Debian package (name <email>)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME xferbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${XFERBENCH_PACKAGE_CONTACT})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "transfer bandwidth and latency of host memory, GPUs and processes against each link's peak")
set(CPACK_PACKAGE_DESCRIPTION
    "xferbench measures how fast bytes move between host memory and GPUs, between GPUs, and between
MPI processes and nodes, and says how close each number is to what the link allows. It runs
nvbandwidth's cases, multi-gpu-bwtest and CUts concurrent transfers, an MPI ping-pong and node
acceptance checks, with text, JSON and CSV output.

The seed tools' names (nvbandwidth, bwtest, cuts, gpudirect_p2p_overalloc) are links to xferbench
in /usr/lib/xferbench/bin, off PATH. Measuring needs the NVIDIA driver.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/PackagingCheck.cmake)
# python3 and matplotlib for 'xferbench plot' only.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-matplotlib")
include(CPack)
