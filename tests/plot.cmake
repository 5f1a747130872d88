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
# Malformed files (issue 26; were exit 70): exit 2 naming the file and the field.
set(_xb_bad_png ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_malformed.png)
add_test(NAME cli_plot_cases_string
         COMMAND ${_xb_check} --expect-exit 2
                 --expect-output "'${CMAKE_CURRENT_LIST_DIR}/data/plot_cases_string.json': field \"cases\" is \"host_to_device_memcpy_ce\", not a list"
                 $<TARGET_FILE:xferbench> plot ${CMAKE_CURRENT_LIST_DIR}/data/plot_cases_string.json -o ${_xb_bad_png})
add_test(NAME cli_plot_size_zero
         COMMAND ${_xb_check} --expect-exit 2
                 --expect-output "series 'host->gpu0' row 0: field \"bytes\" is 0, not a number above 0"
                 $<TARGET_FILE:xferbench> plot ${CMAKE_CURRENT_LIST_DIR}/data/plot_sweep_size_zero.json -o ${_xb_bad_png})
add_test(NAME cli_plot_value_1e400
         COMMAND ${_xb_check} --expect-exit 2
                 --expect-output "is not JSON: the number 1e400 is out of range"
                 $<TARGET_FILE:xferbench> plot ${CMAKE_CURRENT_LIST_DIR}/data/plot_value_1e400.json -o ${_xb_bad_png})
add_test(NAME cli_plot_deep_nesting
         COMMAND ${_xb_check} --deep-json --expect-exit 2 --expect-output "nested too deeply"
                 $<TARGET_FILE:xferbench> plot @DEEP@ -o ${_xb_bad_png})
# A title starting with '-' is a title, not an option of the Python side.
add_test(NAME cli_plot_dash_title
         COMMAND ${_xb_check} $<TARGET_FILE:xferbench> plot ${_xb_python_dir}/tests/data/sweep_htod_2gpu.json
                 --title=-v -o ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_dash_title.svg)
set_tests_properties(python_plot_tests cli_plot_sweep_png cli_plot_unknown_schema cli_plot_string_value
                     cli_plot_cases_string cli_plot_size_zero cli_plot_value_1e400 cli_plot_deep_nesting
                     cli_plot_dash_title PROPERTIES
  ENVIRONMENT "PYTHONPATH=${_xb_python_dir}" SKIP_RETURN_CODE 77 TIMEOUT 300)

# How python3 is found and started, with a planted fake python3 (needs no
# matplotlib). Only PATH's absolute directories are searched: a python3 in
# the current directory never runs, with PATH unset or with '' or '.' in it.
# The first test is the control: the fake does run when PATH names its
# directory, so "did not run" below is not the fake failing.
set(_xb_fake ${_xb_check} --fake-python3)
set(_xb_plot $<TARGET_FILE:xferbench> plot ${_xb_python_dir}/tests/data/sweep_htod_2gpu.json
             -o ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_fake.png)
add_test(NAME cli_plot_fake_python_runs_from_path
         COMMAND ${_xb_fake} marker --path @FAKE@ --expect-fake-ran yes ${_xb_plot})
add_test(NAME cli_plot_no_path_ignores_cwd
         COMMAND ${_xb_fake} marker --in-fake-dir --unset-path --expect-fake-ran no --expect-exit 2
                 --expect-output "PATH is not set" ${_xb_plot})
add_test(NAME cli_plot_empty_path_entries_ignore_cwd
         COMMAND ${_xb_fake} marker --in-fake-dir --path "::" --expect-fake-ran no --expect-exit 2
                 --expect-output "needs python3 on PATH" ${_xb_plot})
add_test(NAME cli_plot_relative_path_entries_ignore_cwd
         COMMAND ${_xb_fake} marker --in-fake-dir --path ".:./:python" --expect-fake-ran no --expect-exit 2
                 --expect-output "needs python3 on PATH" ${_xb_plot})
# How its end maps to exit codes (docs/plots.md): a signal a user sends is
# an interruption (130 / 143), a crash is 70, a python3 that cannot be
# started is 2 with the reason.
add_test(NAME cli_plot_python_sigint
         COMMAND ${_xb_fake} signal:INT --path @FAKE@ --expect-exit 130 --expect-output "ended by signal 2" ${_xb_plot})
add_test(NAME cli_plot_python_sigterm
         COMMAND ${_xb_fake} signal:TERM --path @FAKE@ --expect-exit 143 --expect-output "ended by signal 15"
                 ${_xb_plot})
add_test(NAME cli_plot_python_crash
         COMMAND ${_xb_fake} signal:SEGV --path @FAKE@ --expect-exit 70 --expect-output "ended by signal 11"
                 ${_xb_plot})
add_test(NAME cli_plot_python_cannot_start
         COMMAND ${_xb_fake} bad-interpreter --path @FAKE@ --expect-exit 2
                 --expect-output "cannot start" ${_xb_plot})
add_test(NAME cli_plot_python_odd_status
         COMMAND ${_xb_fake} exit:42 --path @FAKE@ --expect-exit 70 --expect-output "exited with 42" ${_xb_plot})
set_tests_properties(cli_plot_fake_python_runs_from_path cli_plot_no_path_ignores_cwd
                     cli_plot_empty_path_entries_ignore_cwd cli_plot_relative_path_entries_ignore_cwd
                     cli_plot_python_sigint cli_plot_python_sigterm cli_plot_python_crash
                     cli_plot_python_cannot_start cli_plot_python_odd_status PROPERTIES
  SKIP_RETURN_CODE 77 TIMEOUT 120)
unset(_xb_fake)
unset(_xb_plot)
unset(_xb_bad_png)
unset(_xb_python_dir)
unset(_xb_check)
