# frozen_string_literal: true

module Shop
  Item = Struct.new(:name, :count, :price, keyword_init: true)

  class Inventory
    attr_reader :items

    def initialize
      @items = {}
    end

    def add(item)
      old = @items[item.name]
      @items[item.name] = old ? Item.new(name: old.name, count: old.count + item.count, price: old.price) : item
      self
    end

    def find(name) = @items[name]

    def total
      @items.values.sum { |it| it.count * it.price }
    end

    def restock(min)
      low = []
      @items.each do |name, it|
        next unless it.count < min

        low << name
        @items[name] = Item.new(name: name, count: [min, it.count * 2].max, price: it.price)
      end
      low
    end
  end
end

inv = Shop::Inventory.new
inv.add(Shop::Item.new(name: "apple", count: 3, price: 0.5))
puts inv.find("apple")&.count || "missing"
puts "total: #{inv.total}"
