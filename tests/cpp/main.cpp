// The main() of cudajit_cpp_tests (Catch2 v2); every other file in tests/cpp holds test cases.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
