package shop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public class Inventory {
    public record Item(String name, int count, double price) {}

    private final Map<String, Item> items = new HashMap<>();

    public Optional<Item> find(String name) {
        return Optional.ofNullable(items.get(name));
    }

    public void add(Item item) {
        Item old = items.get(item.name());
        if (old == null) {
            items.put(item.name(), item);
        } else {
            items.put(item.name(), new Item(old.name(), old.count() + item.count(), old.price()));
        }
    }

    public double total() {
        return items.values().stream().mapToDouble(it -> it.count() * it.price()).sum();
    }

    public List<String> restock(int min) {
        List<String> low = new ArrayList<>();
        for (Map.Entry<String, Item> e : items.entrySet()) {
            Item it = e.getValue();
            if (it.count() < min) {
                low.add(e.getKey());
                e.setValue(new Item(it.name(), Math.max(min, it.count() * 2), it.price()));
            }
        }
        return low;
    }

    public static void main(String[] args) {
        Inventory inv = new Inventory();
        inv.add(new Item("apple", 3, 0.5));
        System.out.println(inv.find("apple").map(Item::name).orElse("missing"));
    }
}
