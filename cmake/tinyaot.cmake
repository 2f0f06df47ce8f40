# SPDX-License-Identifier: Apache-2.0
#
# Build-time code generation for tinyaot models, for Zephyr and for plain CMake projects.
#
#   include(<tinyaot>/cmake/tinyaot.cmake)
#   tinyaot_add_model(<target> MODEL <file.tflite> NAME <name>
#                     [ARENA_ALIGNMENT <bytes>] [ARENA_SECTION <section>]
#                     [WEIGHTS_SECTION <section>] [ARENA_REGION <label>]
#                     [WEIGHTS_REGION <label>] [ARENA_BUDGET <bytes>] [SMALLEST_ARENA]
#                     [MAX_EXTRA_MACS <percent>] [SPEED_SCRATCH <percent>]
#                     [SPEED_FLASH <percent>] [SHARED_ARENA <pool>]
#                     [CUSTOM_OPS <code>...] [PROFILE] [NO_ARG_CHECKS])
#
# runs the compiler at build time into ${CMAKE_CURRENT_BINARY_DIR}/tinyaot/<name>/, adds
# <name>.c and the folder holding <name>.h to <target>, and links the runtime (crt/) once per
# target. The model file, the options and every compiler source are dependencies, so changing
# any of them regenerates the code on the next build. The compiler's summary line (arena,
# weights, ops, MACs) shows in the build log; a compile error stops the build with the
# compiler's one-line message.
#
# Beside the code, <name>_report.json is the model's report as data (README.md, "Reports as
# data"); after the link of an executable (zephyr.elf under Zephyr) its "code" is filled in from
# the image's symbols.
#
# WEIGHTS_SECTION <section>: the linker section of the model's constants (weights, bias,
# multipliers, tables), e.g. external flash; default .rodata.
#
# SPEED_SCRATCH <percent>: the arena may grow by up to this much to hold the scratch that makes
# some kernels faster on cores with the DSP extension (wide convolution windows); default 0,
# scratch only where it costs no byte. The Zephyr module sets it from TINYAOT_SPEED_SCRATCH.
#
# SPEED_FLASH <percent>: the weights may grow by up to this much on cores with the DSP extension
# for int16 copies of convolution weights, which make those layers faster there; default 0. The
# Zephyr module sets it from TINYAOT_SPEED_FLASH.
#
# ARENA_REGION <label>, WEIGHTS_REGION <label> (Zephyr only): the devicetree node of that label,
# compatible with zephyr,memory-region, holds the pinned arena (or the pool) / the constants.
# Zephyr's linker script makes a memory region and a NOLOAD output section of each such node,
# both named after its zephyr,memory-region property, so the arena goes into that section.
# NOLOAD would leave the constants out of the image, so they are placed with Zephyr's code
# relocation instead (CONFIG_CODE_DATA_RELOCATION=y): the generated file's read-only data in
# the region, loaded in flash and copied there at boot, or linked and loaded there (NOCOPY)
# when the node's zephyr,memory-attr says the memory is non-volatile (DT_MEM_NON_VOLATILE:
# external flash that the image programs).
#
# CUSTOM_OPS: custom ops of the model whose kernels <target> links, each a function
# int tinyaot_custom_<code>(const struct tinyaot_custom_call *call) (tinyaot/tinyaot.h).
#
# SHARED_ARENA <pool>: the models of a pool share one buffer, tinyaot_pool_<pool>, sized and
# aligned for the largest member. Each member is compiled with --shared-arena, which makes its
# pinned arena a common symbol of that name; <pool>_pool.c defines the symbol once, with the
# largest size and alignment (from the members' headers) and ARENA_SECTION if given, and
# <pool>_pool.h declares it with <POOL>_POOL_SIZE and <POOL>_POOL_ALIGNMENT.
# <name>_invoke(NULL) and <name>_run(..., NULL) of every member run in it, so members must
# never run at the same time.
#
# This file is also a cmake -P script for the size report below, so that it needs nothing but
# CMake.

# ---------------------------------------------------------------------------------------------
# Script mode: the size report, run after linking.
# ---------------------------------------------------------------------------------------------

# Prints, per model, the bytes of code, constants and RAM it occupies in the linked image, from
# the symbol table: everything generated for model <m> is named <m>_*, and the kernels are
# tinyaot_*.
function(_tinyaot_print_sizes elf nm models pools)
  if(NOT EXISTS "${elf}" OR NOT nm)
    return()
  endif()
  execute_process(COMMAND ${nm} -S ${elf} OUTPUT_VARIABLE table RESULT_VARIABLE rc
                  ERROR_QUIET)
  if(NOT rc EQUAL 0)
    return()
  endif()
  string(REPLACE ":" ";" models "${models}")
  string(REPLACE ":" ";" pools "${pools}")
  # Longest name first, so that a model "kws" does not claim the symbols of "kws_small".
  list(SORT models COMPARE STRING ORDER DESCENDING)
  set(owners ${models} tinyaot)
  foreach(owner ${owners})
    foreach(kind code const ram)
      set(${owner}_${kind} 0)
    endforeach()
  endforeach()
  foreach(pool ${pools})
    set(pool_${pool} 0)
  endforeach()
  string(REPLACE "\n" ";" lines "${table}")
  foreach(line ${lines})
    if(NOT line MATCHES "^[0-9a-fA-F]+ ([0-9a-fA-F]+) ([A-Za-z]) (.+)$")
      continue()
    endif()
    math(EXPR size "0x${CMAKE_MATCH_1}")
    set(type ${CMAKE_MATCH_2})
    set(symbol ${CMAKE_MATCH_3})
    if(type MATCHES "^[tTwW]$")
      set(kind code)
    elseif(type MATCHES "^[rR]$")
      set(kind const)
    elseif(type MATCHES "^[bBdD]$")
      set(kind ram)
    else()
      continue()
    endif()
    set(matched FALSE)
    foreach(pool ${pools})
      if(symbol STREQUAL "tinyaot_pool_${pool}")
        math(EXPR pool_${pool} "${pool_${pool}} + ${size}")
        set(matched TRUE)
      endif()
    endforeach()
    if(matched)
      continue()
    endif()
    foreach(owner ${owners})
      string(FIND "${symbol}" "${owner}_" at)
      if(at EQUAL 0)
        math(EXPR ${owner}_${kind} "${${owner}_${kind}} + ${size}")
        break()
      endif()
    endforeach()
  endforeach()
  get_filename_component(image ${elf} NAME)
  list(SORT models)
  foreach(m ${models})
    message("tinyaot: ${m}: code ${${m}_code} B, constants ${${m}_const} B, "
            "RAM ${${m}_ram} B in ${image}")
  endforeach()
  foreach(pool ${pools})
    message("tinyaot: pool ${pool}: ${pool_${pool}} B shared")
  endforeach()
  message("tinyaot: runtime: code ${tinyaot_code} B, constants ${tinyaot_const} B")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  if(DEFINED TINYAOT_SIZES_ELF)
    _tinyaot_print_sizes("${TINYAOT_SIZES_ELF}" "${TINYAOT_SIZES_NM}"
                         "${TINYAOT_SIZES_MODELS}" "${TINYAOT_SIZES_POOLS}")
  endif()
  return()
endif()

# ---------------------------------------------------------------------------------------------
# Configure mode.
# ---------------------------------------------------------------------------------------------

include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "tinyaot.cmake needs CMake 3.20 or later")
endif()

# Cache variables, not plain ones: the functions below also run from directories that did not
# include this file (Zephyr's application, after the module included it).
get_filename_component(root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
set(TINYAOT_ROOT ${root} CACHE INTERNAL "the tinyaot repository")
set(TINYAOT_CMAKE_FILE ${CMAKE_CURRENT_LIST_FILE} CACHE INTERNAL "cmake/tinyaot.cmake")

# The interpreter that runs the compiler: Zephyr's (PYTHON_EXECUTABLE), else the one a plain
# project found, else find one. It must import tflite, numpy and jinja2; checked once, at
# configure time, so that a missing package is a clear message rather than a build-time trace.
function(_tinyaot_python out)
  get_property(python GLOBAL PROPERTY TINYAOT_PYTHON)
  if(NOT python)
    if(PYTHON_EXECUTABLE)
      set(python ${PYTHON_EXECUTABLE})
    elseif(Python3_EXECUTABLE)
      set(python ${Python3_EXECUTABLE})
    else()
      find_package(Python3 3.10 REQUIRED COMPONENTS Interpreter)
      set(python ${Python3_EXECUTABLE})
    endif()
    execute_process(COMMAND ${python} -c "import jinja2, numpy, tflite"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "tinyaot: ${python} cannot import the compiler's dependencies "
                          "(pip install tflite numpy jinja2): ${err}")
    endif()
    set_property(GLOBAL PROPERTY TINYAOT_PYTHON ${python})
  endif()
  set(${out} ${python} PARENT_SCOPE)
endfunction()

# The runtime's assembly (crt/src/thumb2/) needs the ASM language, which a project of C alone
# lacks; Zephyr has it.
if(NOT CMAKE_ASM_COMPILER_LOADED)
  enable_language(ASM)
endif()

# The runtime sources, from crt/sources.txt (the one list CMake, bench/ and the tests build
# from). profile.c is returned only on request: it needs tinyaot_profile_clock(), which only
# profiling builds provide.
function(tinyaot_runtime_sources out)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PROFILE" "" "")
  set(listed ${TINYAOT_ROOT}/crt/sources.txt)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${listed})
  file(STRINGS ${listed} lines REGEX "^[^#]")
  list(TRANSFORM lines PREPEND ${TINYAOT_ROOT}/crt/ OUTPUT_VARIABLE sources)
  if(NOT arg_PROFILE)
    list(FILTER sources EXCLUDE REGEX "/profile\\.c$")
  endif()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

# Plain CMake: one static library for the whole project, linked into each target once. Zephyr
# builds the runtime into its own zephyr_library and sets TINYAOT_RUNTIME_PROVIDED.
function(_tinyaot_link_runtime target)
  get_property(provided GLOBAL PROPERTY TINYAOT_RUNTIME_PROVIDED)
  if(provided)
    return()
  endif()
  if(NOT TARGET tinyaot_runtime)
    tinyaot_runtime_sources(sources)
    add_library(tinyaot_runtime STATIC ${sources})
    target_include_directories(tinyaot_runtime PUBLIC ${TINYAOT_ROOT}/crt/include)
    set_target_properties(tinyaot_runtime PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
  endif()
  get_target_property(linked ${target} TINYAOT_RUNTIME_LINKED)
  if(NOT linked)
    target_link_libraries(${target} PRIVATE tinyaot_runtime)
    set_target_properties(${target} PROPERTIES TINYAOT_RUNTIME_LINKED TRUE)
  endif()
endfunction()

# The size report command for an image whose models are listed in <target>'s TINYAOT_MODELS.
function(tinyaot_size_command out elf target)
  set(nm ${CMAKE_NM})
  if(NOT nm)
    set(nm nm)
  endif()
  set(${out}
    ${CMAKE_COMMAND}
    -DTINYAOT_SIZES_ELF=${elf}
    -DTINYAOT_SIZES_NM=${nm}
    "-DTINYAOT_SIZES_MODELS=$<JOIN:$<TARGET_PROPERTY:${target},TINYAOT_MODELS>,:>"
    "-DTINYAOT_SIZES_POOLS=$<JOIN:$<TARGET_PROPERTY:${target},TINYAOT_POOLS>,:>"
    -P ${TINYAOT_CMAKE_FILE}
    PARENT_SCOPE)
endfunction()

# The command that fills in the code size of <target>'s <name>_report.json files from <elf>.
# The reports are one argument, a CMake list, which `tinyaot link-report` splits, whether or
# not the caller expands lists.
function(tinyaot_link_report_command out elf target)
  _tinyaot_python(python)
  set(nm ${CMAKE_NM})
  if(NOT nm)
    set(nm nm)
  endif()
  set(${out}
    ${CMAKE_COMMAND} -E env PYTHONPATH=${TINYAOT_ROOT}/scripts PYTHONDONTWRITEBYTECODE=1
    ${python} -m tinyaot link-report --elf ${elf} --nm ${nm}
    "$<JOIN:$<TARGET_PROPERTY:${target},TINYAOT_REPORTS>,$<SEMICOLON>>"
    PARENT_SCOPE)
endfunction()

# Writes <pool>_pool.h and <pool>_pool.c for the members so far. Rewritten on every new
# member; file(CONFIGURE) leaves an unchanged file alone, so nothing rebuilds needlessly.
function(_tinyaot_write_pool pool dir)
  get_property(members GLOBAL PROPERTY TINYAOT_POOL_${pool}_MEMBERS)
  get_property(section GLOBAL PROPERTY TINYAOT_POOL_${pool}_SECTION)
  string(TOUPPER ${pool} POOL)
  set(includes "")
  set(size "")
  set(alignment "")
  foreach(m ${members})
    string(TOUPPER ${m} M)
    string(APPEND includes "#include <${m}.h>\n")
    if(size STREQUAL "")
      set(size "${M}_ARENA_SIZE")
      set(alignment "${M}_ARENA_ALIGNMENT")
    else()
      set(size "TINYAOT_POOL_MAX_(${size}, ${M}_ARENA_SIZE)")
      set(alignment "TINYAOT_POOL_MAX_(${alignment}, ${M}_ARENA_ALIGNMENT)")
    endif()
  endforeach()
  list(JOIN members ", " member_list)
  list(LENGTH members count)
  set(header_text [=[
/* Generated by tinyaot_add_model(SHARED_ARENA @pool@). Do not edit. */
#ifndef @POOL@_POOL_H_
#define @POOL@_POOL_H_

#include <stdint.h>
#include <tinyaot/tinyaot.h>
@includes@
#ifndef TINYAOT_POOL_MAX_
#define TINYAOT_POOL_MAX_(a, b) ((a) > (b) ? (a) : (b))
#endif

/* One arena for @member_list@: each model's pinned arena (arena == NULL) is this buffer, so
 * at most one of them may run at a time, and whatever one leaves in the pool (its inputs and
 * outputs included) is overwritten when another runs.
 */
#define @POOL@_POOL_MEMBERS   @count@
#define @POOL@_POOL_SIZE      @size@
#define @POOL@_POOL_ALIGNMENT @alignment@

extern uint8_t tinyaot_pool_@pool@[@POOL@_POOL_SIZE];

#endif /* @POOL@_POOL_H_ */
]=])
  set(attributes "TINYAOT_ALIGNED(${POOL}_POOL_ALIGNMENT)")
  if(section)
    string(APPEND attributes " TINYAOT_SECTION(\"${section}\")")
  endif()
  set(source_text [=[
/* Generated by tinyaot_add_model(SHARED_ARENA @pool@). Do not edit. */
#include "@pool@_pool.h"

/* The definition: each member's common symbol of this name resolves to it, so the pool has
 * the largest member's size and alignment, and the section it was given.
 */
uint8_t tinyaot_pool_@pool@[@POOL@_POOL_SIZE] @attributes@;
]=])
  file(CONFIGURE OUTPUT ${dir}/${pool}_pool.h CONTENT "${header_text}" @ONLY)
  file(CONFIGURE OUTPUT ${dir}/${pool}_pool.c CONTENT "${source_text}" @ONLY)
endfunction()

# DT_MEM_NON_VOLATILE of Zephyr's include/zephyr/dt-bindings/memory-attr/memory-attr.h.
set(TINYAOT_DT_MEM_NON_VOLATILE 2 CACHE INTERNAL "zephyr,memory-attr bit of non-volatile memory")

# The devicetree node labelled <label> as a memory region: sets <out>_NAME to the name of the
# linker region and output section Zephyr makes of it (its zephyr,memory-region property as
# LINKER_DT_NODE_REGION_NAME_TOKEN spells it), <out>_PATH to the node's path and
# <out>_NON_VOLATILE to whether its zephyr,memory-attr has DT_MEM_NON_VOLATILE. Zephyr's linker
# script (LINKER_DT_SECTIONS) makes the region of every node of status okay compatible with
# zephyr,memory-region, and of no other, so a node that is not one is refused here rather
# than leaving the symbol in an orphan section wherever the linker puts it.
function(_tinyaot_dt_region out name option label)
  set(what "tinyaot_add_model(${name}): ${option} ${label}")
  if(NOT COMMAND dt_nodelabel)
    message(FATAL_ERROR "${what}: a devicetree node label needs Zephyr's devicetree; "
                        "outside Zephyr name a linker section (ARENA_SECTION, WEIGHTS_SECTION)")
  endif()
  dt_nodelabel(path NODELABEL "${label}")
  if(NOT DEFINED path)
    message(FATAL_ERROR "${what}: the devicetree has no node labelled '${label}'")
  endif()
  dt_prop(compatible PATH "${path}" PROPERTY compatible)
  dt_prop(region PATH "${path}" PROPERTY "zephyr,memory-region")
  if(NOT "zephyr,memory-region" IN_LIST compatible OR NOT DEFINED region)
    message(FATAL_ERROR "${what}: node ${path} is not a memory region: it needs compatible "
                        "\"zephyr,memory-region\" and a zephyr,memory-region property, from "
                        "which Zephyr's linker script makes the region")
  endif()
  dt_node_has_status(okay PATH "${path}" STATUS okay)
  if(NOT okay)
    message(FATAL_ERROR "${what}: node ${path} is disabled; Zephyr makes no region of it")
  endif()
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" region "${region}")
  dt_prop(attr PATH "${path}" PROPERTY "zephyr,memory-attr")
  set(non_volatile FALSE)
  if(DEFINED attr AND NOT attr STREQUAL "")
    math(EXPR bit "${attr} & ${TINYAOT_DT_MEM_NON_VOLATILE}")
    if(bit)
      set(non_volatile TRUE)
    endif()
  endif()
  set(${out}_NAME ${region} PARENT_SCOPE)
  set(${out}_PATH ${path} PARENT_SCOPE)
  set(${out}_NON_VOLATILE ${non_volatile} PARENT_SCOPE)
endfunction()

function(tinyaot_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PROFILE;NO_ARG_CHECKS;SMALLEST_ARENA"
    "MODEL;NAME;ARENA_ALIGNMENT;ARENA_SECTION;WEIGHTS_SECTION;ARENA_REGION;WEIGHTS_REGION;ARENA_BUDGET;MAX_EXTRA_MACS;SPEED_SCRATCH;SPEED_FLASH;SHARED_ARENA"
    "CUSTOM_OPS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tinyaot_add_model: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tinyaot_add_model: no target named '${target}'")
  endif()
  if(NOT arg_MODEL OR NOT arg_NAME)
    message(FATAL_ERROR "tinyaot_add_model(${target}): MODEL and NAME are required")
  endif()
  if(NOT arg_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "tinyaot_add_model: NAME '${arg_NAME}' is not a C identifier")
  endif()
  get_filename_component(model ${arg_MODEL} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT EXISTS ${model} OR IS_DIRECTORY ${model})
    message(FATAL_ERROR "tinyaot_add_model: model file '${model}' not found")
  endif()
  get_property(names GLOBAL PROPERTY TINYAOT_MODEL_NAMES)
  if(arg_NAME IN_LIST names)
    message(FATAL_ERROR "tinyaot_add_model: a model named '${arg_NAME}' was already added; "
                        "each model needs its own NAME")
  endif()
  foreach(what ARENA WEIGHTS)
    if(arg_${what}_REGION AND arg_${what}_SECTION)
      message(FATAL_ERROR "tinyaot_add_model(${arg_NAME}): ${what}_REGION "
                          "${arg_${what}_REGION} and ${what}_SECTION ${arg_${what}_SECTION} are "
                          "two places for one thing: give one")
    endif()
  endforeach()
  if(arg_ARENA_REGION)
    # The arena needs no initial contents, so the region's NOLOAD section is where it goes.
    _tinyaot_dt_region(arena_region ${arg_NAME} ARENA_REGION ${arg_ARENA_REGION})
    set(arg_ARENA_SECTION ${arena_region_NAME})
  endif()
  if(arg_WEIGHTS_REGION)
    _tinyaot_dt_region(weights_region ${arg_NAME} WEIGHTS_REGION ${arg_WEIGHTS_REGION})
    if(NOT CONFIG_CODE_DATA_RELOCATION)
      message(FATAL_ERROR "tinyaot_add_model(${arg_NAME}): WEIGHTS_REGION "
                          "${arg_WEIGHTS_REGION} needs CONFIG_CODE_DATA_RELOCATION=y: Zephyr's "
                          "section of region ${weights_region_NAME} is NOLOAD, so the weights "
                          "are placed and loaded by its code relocation")
    endif()
    if(weights_region_NAME MATCHES "_")
      # gen_relocate_app.py reads what follows a '_' in the location as an MPU alignment.
      message(FATAL_ERROR "tinyaot_add_model(${arg_NAME}): WEIGHTS_REGION "
                          "${arg_WEIGHTS_REGION}: Zephyr's code relocation cannot take region "
                          "${weights_region_NAME}, whose name has a '_'")
    endif()
  endif()
  set_property(GLOBAL APPEND PROPERTY TINYAOT_MODEL_NAMES ${arg_NAME})

  _tinyaot_python(python)
  set(name ${arg_NAME})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/tinyaot/${name})
  set(source ${out}/${name}.c)
  set(header ${out}/${name}.h)

  set(options --name ${name} --json-report)
  if(DEFINED arg_ARENA_ALIGNMENT AND NOT arg_ARENA_ALIGNMENT STREQUAL "")
    list(APPEND options --arena-alignment ${arg_ARENA_ALIGNMENT})
  endif()
  if(arg_SHARED_ARENA)
    # The section goes to the pool's definition; the compiler refuses it with a pool.
    list(APPEND options --shared-arena ${arg_SHARED_ARENA})
  elseif(arg_ARENA_SECTION)
    list(APPEND options --arena-section ${arg_ARENA_SECTION})
  endif()
  if(arg_WEIGHTS_SECTION)
    list(APPEND options --weights-section ${arg_WEIGHTS_SECTION})
  endif()
  if(arg_ARENA_BUDGET)
    list(APPEND options --arena-budget ${arg_ARENA_BUDGET})
  endif()
  if(arg_SMALLEST_ARENA)
    list(APPEND options --smallest-arena)
  endif()
  foreach(key IN ITEMS MAX_EXTRA_MACS SPEED_SCRATCH SPEED_FLASH)
    if(DEFINED arg_${key})
      if(NOT arg_${key} MATCHES "^[0-9]+$")
        message(FATAL_ERROR "tinyaot_add_model(${arg_NAME}): ${key} "
                            "'${arg_${key}}' is not a whole percentage")
      endif()
      # MAX_EXTRA_MACS -> --max-extra-macs
      string(TOLOWER "${key}" flag)
      string(REPLACE "_" "-" flag "${flag}")
      list(APPEND options --${flag} ${arg_${key}})
    endif()
  endforeach()
  foreach(code IN LISTS arg_CUSTOM_OPS)
    list(APPEND options --custom-op ${code})
  endforeach()

  set(commands
    COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${TINYAOT_ROOT}/scripts PYTHONDONTWRITEBYTECODE=1
            ${python} -m tinyaot compile ${model} ${options} --output-dir ${out})

  if(arg_SHARED_ARENA)
    set(pool ${arg_SHARED_ARENA})
    if(NOT pool MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "tinyaot_add_model: SHARED_ARENA '${pool}' is not a C identifier")
    endif()
    get_property(pool_dir GLOBAL PROPERTY TINYAOT_POOL_${pool}_DIR)
    get_property(pool_section GLOBAL PROPERTY TINYAOT_POOL_${pool}_SECTION)
    get_property(pool_target GLOBAL PROPERTY TINYAOT_POOL_${pool}_TARGET)
    if(NOT pool_dir)
      set(pool_dir ${CMAKE_BINARY_DIR}/tinyaot/${pool}.pool)
      set_property(GLOBAL PROPERTY TINYAOT_POOL_${pool}_DIR ${pool_dir})
      set_property(GLOBAL PROPERTY TINYAOT_POOL_${pool}_SECTION "${arg_ARENA_SECTION}")
      set_property(GLOBAL PROPERTY TINYAOT_POOL_${pool}_TARGET ${target})
      set(first_member TRUE)
    elseif(NOT pool_target STREQUAL target)
      # The pool's buffer is compiled into its first target and sized from every member's
      # header, so the members must share that target's include path.
      message(FATAL_ERROR "tinyaot_add_model(${name}): the models of SHARED_ARENA ${pool} "
                          "must be added to one target ('${pool_target}')")
    elseif(NOT "${pool_section}" STREQUAL "${arg_ARENA_SECTION}")
      message(FATAL_ERROR "tinyaot_add_model(${name}): the models of SHARED_ARENA ${pool} "
                          "must use the same ARENA_SECTION ('${pool_section}')")
    endif()
    set_property(GLOBAL APPEND PROPERTY TINYAOT_POOL_${pool}_MEMBERS ${name})
    _tinyaot_write_pool(${pool} ${pool_dir})
  endif()

  # The compiler sources (templates included) are dependencies, so an updated compiler
  # regenerates; named by pattern, as bytecode caches come and go with every Python run and
  # would make CONFIGURE_DEPENDS re-run CMake. The options go into a stamp file as well as
  # onto the command line: Ninja reruns a changed command by itself, Makefile generators only
  # see a changed file.
  file(GLOB_RECURSE compiler CONFIGURE_DEPENDS ${TINYAOT_ROOT}/scripts/tinyaot/*.py
       ${TINYAOT_ROOT}/scripts/tinyaot/templates/*)
  set(stamp ${out}.options)
  list(JOIN options " " options_text)
  file(CONFIGURE OUTPUT ${stamp}
       CONTENT "${options_text}\nARENA_SECTION=${arg_ARENA_SECTION}\n" @ONLY)
  file(RELATIVE_PATH shown ${CMAKE_SOURCE_DIR} ${model})
  if(shown MATCHES "^\\.\\./\\.\\./")
    set(shown ${model})
  endif()

  # Run from the output folder: `python -m` puts the working directory first on sys.path, and
  # the build folder holds a tinyaot/ folder of generated code.
  file(MAKE_DIRECTORY ${out})
  add_custom_command(
    OUTPUT ${source} ${header} ${out}/${name}_report.json
    ${commands}
    WORKING_DIRECTORY ${out}
    DEPENDS ${model} ${compiler} ${TINYAOT_CMAKE_FILE} ${stamp}
    COMMENT "tinyaot: compiling ${shown} into ${name}.c"
    VERBATIM)
  # A target of its own, so that a target in another directory (Zephyr's app, when the glue
  # runs from the module's folder) can depend on the generated files.
  add_custom_target(tinyaot_model_${name} DEPENDS ${source} ${header})
  add_dependencies(${target} tinyaot_model_${name})

  set_source_files_properties(${source} ${header} TARGET_DIRECTORY ${target}
                              PROPERTIES GENERATED TRUE)
  set(definitions "")
  if(arg_PROFILE)
    list(APPEND definitions TINYAOT_PROFILE)
  endif()
  if(arg_NO_ARG_CHECKS)
    list(APPEND definitions TINYAOT_NO_ARG_CHECKS)
  endif()
  if(definitions)
    set_property(SOURCE ${source} TARGET_DIRECTORY ${target} APPEND
                 PROPERTY COMPILE_DEFINITIONS ${definitions})
  endif()
  get_property(provided GLOBAL PROPERTY TINYAOT_RUNTIME_PROVIDED)
  if(arg_PROFILE AND provided AND NOT CONFIG_TINYAOT_PROFILE)
    # Zephyr links the profiling glue only with the Kconfig option.
    message(FATAL_ERROR "tinyaot_add_model(${name}): PROFILE needs CONFIG_TINYAOT_PROFILE=y")
  endif()
  get_target_property(profiled ${target} TINYAOT_PROFILE_LINKED)
  if(arg_PROFILE AND NOT provided AND NOT profiled)
    # The profiling glue compiles to nothing without TINYAOT_PROFILE, so it goes into the
    # profiling target rather than into the shared runtime library.
    set(glue ${TINYAOT_ROOT}/crt/src/profile.c)
    target_sources(${target} PRIVATE ${glue})
    set_property(SOURCE ${glue} TARGET_DIRECTORY ${target} APPEND
                 PROPERTY COMPILE_DEFINITIONS TINYAOT_PROFILE)
    set_target_properties(${target} PROPERTIES TINYAOT_PROFILE_LINKED TRUE)
  endif()
  target_sources(${target} PRIVATE ${source} ${header})
  target_include_directories(${target} PUBLIC ${out})
  if(arg_WEIGHTS_REGION)
    # Only the read-only data of the generated file: its weights, tables and model info.
    set(relocation LOCATION ${weights_region_NAME}_RODATA)
    if(weights_region_NON_VOLATILE)
      list(APPEND relocation NOCOPY)
    endif()
    zephyr_code_relocate(FILES ${source} ${relocation})
  endif()
  set_property(TARGET ${target} APPEND PROPERTY TINYAOT_MODELS ${name})
  set_property(TARGET ${target} APPEND PROPERTY TINYAOT_REPORTS ${out}/${name}_report.json)

  if(arg_SHARED_ARENA)
    target_include_directories(${target} PUBLIC ${pool_dir})
    if(first_member)
      target_sources(${target} PRIVATE ${pool_dir}/${pool}_pool.c)
      set_property(TARGET ${target} APPEND PROPERTY TINYAOT_POOLS ${pool})
    endif()
  endif()

  _tinyaot_link_runtime(${target})

  # Plain CMake: report the sizes after linking an executable. Zephyr's glue does it for
  # zephyr.elf.
  get_target_property(type ${target} TYPE)
  get_target_property(reporting ${target} TINYAOT_SIZE_REPORT)
  if(type STREQUAL "EXECUTABLE" AND NOT reporting AND NOT provided)
    tinyaot_size_command(report $<TARGET_FILE:${target}> ${target})
    tinyaot_link_report_command(link_report $<TARGET_FILE:${target}> ${target})
    add_custom_command(TARGET ${target} POST_BUILD COMMAND ${report} COMMAND ${link_report}
                       VERBATIM)
    set_target_properties(${target} PROPERTIES TINYAOT_SIZE_REPORT TRUE)
  endif()
endfunction()
