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
# Lines of at most 80 characters, as Debian policy (and lintian) want them.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "bandwidth and latency of host memory, GPUs and processes vs. the link's peak")
set(CPACK_PACKAGE_DESCRIPTION
    "xferbench measures how fast bytes move between host memory and GPUs, between
GPUs, and between MPI processes and nodes, and says how close each number is
to what the link allows. It runs nvbandwidth's cases, multi-gpu-bwtest and
CUts concurrent transfers, an MPI ping-pong, node acceptance checks and
soaks, with text, JSON, CSV and Prometheus output. A systemd service and
timer for a nightly check (off until enabled), Prometheus alerting rules and
bash completion come with it.

The seed tools' names (nvbandwidth, bwtest, cuts, gpudirect_p2p_overalloc)
are links to xferbench in /usr/lib/xferbench/bin, off PATH. Measuring needs
the NVIDIA driver.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/PackagingCheck.cmake)
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/PackagingInstalledSize.cmake)
# Depends is what dpkg-shlibdeps finds the binary loads (libc6, libgcc-s1,
# libnuma1, libopenmpi3, libstdc++6); NVML and NCCL are opened with dlopen,
# from the driver and the user's NCCL. Recommends is what a user runs:
# matplotlib for 'xferbench plot' (it brings python3). python3-munkres comes
# first: matplotlib needs python3-fonttools, which depends on "python3-scipy
# | python3-munkres", and apt, finding neither, takes scipy, whose pythran
# brings g++, gcc and 27 -dev packages (211 packages, 975 MB); with munkres
# already chosen, 137 packages and no compiler (tests/deb_install.sh).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-munkres, python3-matplotlib")
include(CPack)
