# The `kvbench` command (run, size, topo, ceilings, report, compare, ab).
# Reusable logic (options, presets, sweeps, sizing, CSV rows, resume, fixtures) lives in
# kvbench_cli so tests/cli can link it; kvbench_main.cc only dispatches subcommands.
set(_kvb_cli_dir ${CMAKE_CURRENT_LIST_DIR})

add_library(kvbench_cli STATIC
  ${_kvb_cli_dir}/ab_command.cc
  ${_kvb_cli_dir}/ceilings_command.cc
  ${_kvb_cli_dir}/decode_fixture.cc
  ${_kvb_cli_dir}/existing_results.cc
  ${_kvb_cli_dir}/kv_sizing.cc
  ${_kvb_cli_dir}/machine_facts.cc
  ${_kvb_cli_dir}/machine_probe.cc
  ${_kvb_cli_dir}/model_presets.cc
  ${_kvb_cli_dir}/option_parser.cc
  ${_kvb_cli_dir}/option_suggestion.cc
  ${_kvb_cli_dir}/progress.cc
  ${_kvb_cli_dir}/result_rows.cc
  ${_kvb_cli_dir}/variant_runner.cc
  ${_kvb_cli_dir}/run_command.cc
  ${_kvb_cli_dir}/run_options.cc
  ${_kvb_cli_dir}/run_summary.cc
  ${_kvb_cli_dir}/shape_options.cc
  ${_kvb_cli_dir}/size_command.cc
  ${_kvb_cli_dir}/sweep.cc
  ${_kvb_cli_dir}/topo_command.cc
  ${_kvb_cli_dir}/value_list.cc
  ${_kvb_cli_dir}/worker_waits.cc)
target_include_directories(kvbench_cli PUBLIC ${PROJECT_SOURCE_DIR})
target_compile_definitions(kvbench_cli PRIVATE
  KVBENCH_SOURCE_MODELS_DIR="${PROJECT_SOURCE_DIR}/configs/models")
target_link_libraries(kvbench_cli PUBLIC kvbench_harness kvbench_kernels benchmark::benchmark
                      Boost::program_options kvbench_fccp)

add_executable(kvbench ${_kvb_cli_dir}/kvbench_main.cc)
if(KVBENCH_LAYOUT_SHIFT GREATER 0)
  target_compile_definitions(kvbench PRIVATE KVBENCH_LAYOUT_SHIFT=${KVBENCH_LAYOUT_SHIFT})
endif()
target_link_libraries(kvbench PRIVATE kvbench_cli)
# build/kvbench: the path the README's commands use.
set_target_properties(kvbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
if(TARGET kvbench_analysis)
  target_link_libraries(kvbench PRIVATE kvbench_analysis)
  target_compile_definitions(kvbench PRIVATE KVBENCH_HAVE_ANALYSIS=1)
endif()
