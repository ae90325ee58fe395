# Lint as CTest tests (label lint): the layer order of src/. tools/check_layers.py
# holds the order; docs/architecture.md lists it for readers, and
# lint/layers_doc fails when the two differ. lint/layers_self_test plants an
# include of a later layer in a scratch tree and expects it to be caught.
# lint/tidy_scope_self_test checks how tools/dev lint picks the sources clang-tidy reads.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  set(fc_check_layers ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_layers.py)
  add_test(NAME lint/layers COMMAND ${fc_check_layers} --root ${PROJECT_SOURCE_DIR})
  add_test(NAME lint/layers_doc COMMAND ${fc_check_layers} --doc ${PROJECT_SOURCE_DIR}/docs/architecture.md)
  add_test(NAME lint/layers_self_test COMMAND ${fc_check_layers} --self-test)
  add_test(NAME lint/tidy_scope_self_test COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/tidy_scope.py --self-test)
  set_tests_properties(lint/layers lint/layers_doc lint/layers_self_test lint/tidy_scope_self_test
                       PROPERTIES LABELS lint)
endif()
