// Code written against the SwiftletModel models, type-checked against the converted ones.
import Foundation
import SchemaRuntime

func shopExamples() throws {
    var context = Context()
    let product = Product(sku: "A-1", name: "Kettle", price: 25, category: "kitchen")
    try product.save(to: &context)
    try Catalog.Supplier(id: "s", name: "ACME", createdAt: Date(), products: .ids([product.id])).save(to: &context)
    let supplier: Catalog.Supplier? = Catalog.Supplier.query("s", in: context).with(\.$products).resolve()
    _ = supplier
    try Review(id: 1, stars: 5, createdAt: Date(), product: .id(product.id)).save(to: &context)
    let cheap = Product.filter(\.price < 30, in: context).sorted(by: \.price.desc).resolve()
    let labels = cheap.map { $0.priceLabel() + ($0.isInStock ? "" : " (sold out)") }
    let found = Product.query(in: context).filter(.string(\.name, \.summary, matches: "kettle")).with(\.$reviews).resolve()
    _ = (labels, found, Catalog.version, Dimensions(width: 1, height: 2))
    try Product(sku: "A-1", name: "Kettle 2", price: 27, category: "kitchen").save(to: &context, options: Product.fragmentMergeStrategy)
}
