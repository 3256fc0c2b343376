# The `kvbench` command (run, size, topo, ceilings, report, compare).
# Reusable logic (options, presets, sweeps, sizing, CSV rows, resume) lives in kvbench_cli so
# tests/cli can link it; kvbench_main.cc only dispatches subcommands.
set(_kvb_cli_dir ${CMAKE_CURRENT_LIST_DIR})

add_library(kvbench_cli STATIC
  ${_kvb_cli_dir}/kv_sizing.cc
  ${_kvb_cli_dir}/machine_facts.cc
  ${_kvb_cli_dir}/model_presets.cc
  ${_kvb_cli_dir}/option_parser.cc
  ${_kvb_cli_dir}/option_suggestion.cc
  ${_kvb_cli_dir}/shape_options.cc
  ${_kvb_cli_dir}/sweep.cc
  ${_kvb_cli_dir}/value_list.cc)
target_include_directories(kvbench_cli PUBLIC ${PROJECT_SOURCE_DIR})
target_compile_definitions(kvbench_cli PRIVATE
  KVBENCH_SOURCE_MODELS_DIR="${PROJECT_SOURCE_DIR}/configs/models")
target_link_libraries(kvbench_cli PUBLIC kvbench_kernels Boost::program_options)

if(TARGET kvbench_harness)
  target_sources(kvbench_cli PRIVATE
    ${_kvb_cli_dir}/machine_probe.cc
    ${_kvb_cli_dir}/size_command.cc)
  target_link_libraries(kvbench_cli PUBLIC kvbench_harness)
endif()
