// The system SQLite (libsqlite3-dev on Debian/Ubuntu), for platforms without the SDK's SQLite3 module.
#include <sqlite3.h>
