# Third-party libraries, all from Debian's packages (scripts/install-deps installs them).
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

# OpenBLAS: CPU sgemm for the kernels.
find_package(PkgConfig REQUIRED)
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)

# Gloo: the CPU collective transport (TCP + FileStore rendezvous).
find_package(Gloo CONFIG REQUIRED)

# SQLite: the project file. The profiler talks to it directly (Qt-free); the GUI uses QtSql on top.
find_package(SQLite3 REQUIRED)

# nlohmann/json: experiment files, model specs, the CLI's --json output, trace import/export (SAX streaming).
find_package(nlohmann_json 3.10 REQUIRED)

if(PACER_GUI)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets Sql Test Charts)
else()
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Test)
endif()
set(CMAKE_AUTOMOC ON)
