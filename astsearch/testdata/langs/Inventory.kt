package shop

import kotlin.math.max

data class Item(val name: String, val count: Int, val price: Double = 0.0)

interface Store {
    fun find(name: String): Item?
    fun add(item: Item)
}

class Inventory(private val items: MutableMap<String, Item> = mutableMapOf()) : Store {
    override fun find(name: String): Item? = items[name]

    override fun add(item: Item) {
        val old = items[item.name]
        items[item.name] = if (old == null) item else old.copy(count = old.count + item.count)
    }

    fun total(): Double = items.values.sumOf { it.count * it.price }

    fun restock(min: Int): List<String> {
        val low = mutableListOf<String>()
        for ((name, item) in items) {
            if (item.count < min) {
                low.add(name)
                items[name] = item.copy(count = max(min, item.count * 2))
            }
        }
        return low
    }

    companion object {
        fun of(vararg xs: Item): Inventory = Inventory().apply { xs.forEach { add(it) } }
    }
}

fun main() {
    val inv = Inventory.of(Item("apple", 3, 0.5), Item("pear", 10, 0.75))
    when (val it = inv.find("apple")) {
        null -> println("missing")
        else -> println("${it.name}: ${it.count}")
    }
    println(inv.restock(5))
}
