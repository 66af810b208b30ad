import Foundation

struct Item: Equatable {
    let name: String
    var count: Int
    var price: Double = 0
}

protocol Store {
    func find(_ name: String) -> Item?
    mutating func add(_ item: Item)
}

struct Inventory: Store {
    private var items: [String: Item] = [:]

    func find(_ name: String) -> Item? {
        return items[name]
    }

    mutating func add(_ item: Item) {
        if var old = items[item.name] {
            old.count += item.count
            items[item.name] = old
        } else {
            items[item.name] = item
        }
    }

    var total: Double {
        items.values.reduce(0) { $0 + Double($1.count) * $1.price }
    }

    mutating func restock(min: Int) -> [String] {
        var low: [String] = []
        for (name, var item) in items where item.count < min {
            low.append(name)
            item.count = max(min, item.count * 2)
            items[name] = item
        }
        return low.sorted()
    }
}

var inv = Inventory()
inv.add(Item(name: "apple", count: 3, price: 0.5))
if let it = inv.find("apple") {
    print("\(it.name): \(it.count)")
} else {
    print("missing")
}
