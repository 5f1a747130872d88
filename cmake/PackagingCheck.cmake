# Run by cpack once the files are staged, before it makes the package
# (CPACK_PRE_BUILD_SCRIPTS in Packaging.cmake): without dpkg-shlibdeps CPack
# would make a .deb that declares no dependencies at all.
find_program(_xb_shlibdeps dpkg-shlibdeps)
if(NOT _xb_shlibdeps)
  message(FATAL_ERROR "the Debian package needs dpkg-shlibdeps to list its dependencies: apt-get install dpkg-dev")
endif()
