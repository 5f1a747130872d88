# Plot tests: the xferbench_plot package's pytest suite renders PNG and SVG
# from the fixtures in python/tests/data, and the binary's 'plot' command is
# run end to end. Both SKIP (exit 77) without python3, matplotlib or pytest.
set(_xb_python_dir ${PROJECT_SOURCE_DIR}/python)
add_test(NAME python_plot_tests
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/plot_pytest.sh python3 -m pytest -q -p no:cacheprovider ${_xb_python_dir}/tests)
add_test(NAME cli_plot_sweep_png
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/plot_pytest.sh $<TARGET_FILE:xferbench> plot
                 ${_xb_python_dir}/tests/data/sweep_htod_2gpu.json -o ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_sweep.png)
add_test(NAME cli_plot_unknown_schema
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/plot_pytest.sh --expect-exit 2 $<TARGET_FILE:xferbench> plot
                 ${CMAKE_CURRENT_LIST_DIR}/CMakeLists.txt -o ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_bad.png)
set_tests_properties(python_plot_tests cli_plot_sweep_png cli_plot_unknown_schema PROPERTIES
  ENVIRONMENT "PYTHONPATH=${_xb_python_dir}" SKIP_RETURN_CODE 77 TIMEOUT 300)
unset(_xb_python_dir)
