# Plot tests: the xferbench_plot package's pytest suite renders PNG and SVG
# from the fixtures in python/tests/data (needs pytest and matplotlib), and
# the binary's 'plot' command is run end to end (needs matplotlib only).
# Each SKIPs (exit 77) when what it needs is missing.
set(_xb_python_dir ${PROJECT_SOURCE_DIR}/python)
set(_xb_check ${CMAKE_CURRENT_LIST_DIR}/plot_check.sh)
add_test(NAME python_plot_tests
         COMMAND ${_xb_check} --pytest python3 -m pytest -q -p no:cacheprovider ${_xb_python_dir}/tests)
add_test(NAME cli_plot_sweep_png
         COMMAND ${_xb_check} $<TARGET_FILE:xferbench> plot
                 ${_xb_python_dir}/tests/data/sweep_htod_2gpu.json -o ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_sweep.png)
add_test(NAME cli_plot_unknown_schema
         COMMAND ${_xb_check} --expect-exit 2 $<TARGET_FILE:xferbench> plot
                 ${CMAKE_CURRENT_LIST_DIR}/CMakeLists.txt -o ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_bad.png)
# A string where a number belongs: exit 2 naming the file and the field.
add_test(NAME cli_plot_string_value
         COMMAND ${_xb_check} --expect-exit 2
                 --expect-output "'${CMAKE_CURRENT_LIST_DIR}/data/run_string_value.json': case 'host_to_device_memcpy_ce' cell (0, 0): field \"value_gbps\" is \"fast\", not a number"
                 $<TARGET_FILE:xferbench> plot ${CMAKE_CURRENT_LIST_DIR}/data/run_string_value.json
                 -o ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_string.png)
set_tests_properties(python_plot_tests cli_plot_sweep_png cli_plot_unknown_schema cli_plot_string_value PROPERTIES
  ENVIRONMENT "PYTHONPATH=${_xb_python_dir}" SKIP_RETURN_CODE 77 TIMEOUT 300)
unset(_xb_python_dir)
unset(_xb_check)
