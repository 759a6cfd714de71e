# Sourced by the measurement scripts: a throwaway consumer package that depends on a clone of
# this repository by path and applies the build plugin to its `App` target.
#
#   write_consumer_manifest PACKAGE_DIR CONSUMER_DIR
write_consumer_manifest() {
    local package=$1 consumer=$2 identity
    identity=$(basename "$package")
    mkdir -p "$consumer/Sources/App"
    cat >"$consumer/Package.swift" <<EOF2
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Consumer",
    dependencies: [.package(path: "$package")],
    targets: [
        .executableTarget(
            name: "App",
            dependencies: [.product(name: "SchemaRuntime", package: "$identity")],
            plugins: [.plugin(name: "SchemaGenPlugin", package: "$identity")]
        )
    ]
)
EOF2
}
