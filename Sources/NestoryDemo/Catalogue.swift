/// What a typical home holds: names, brands, price ranges (in major units) and where things live.
struct Template: Sendable {
    let name: String
    let category: String
    let brands: [String]
    let priceRange: ClosedRange<Int>
    let rooms: [String]
    let hasSerial: Bool
}

enum Catalogue {
    static let templates: [Template] = [
        // Electronics
        .init(name: "OLED TV 65\"", category: "Electronics", brands: ["LG", "Sony", "Samsung"], priceRange: 1200...3200, rooms: ["Living Room", "Primary Bedroom"], hasSerial: true),
        .init(name: "LED TV 43\"", category: "Electronics", brands: ["TCL", "Hisense", "Samsung"], priceRange: 250...600, rooms: ["Bedroom", "Primary Bedroom", "Kitchen"], hasSerial: true),
        .init(name: "Laptop", category: "Electronics", brands: ["Apple", "Dell", "Lenovo", "HP"], priceRange: 700...2800, rooms: ["Office", "Bedroom", "Living Room"], hasSerial: true),
        .init(name: "Desktop Computer", category: "Electronics", brands: ["Apple", "Dell", "HP"], priceRange: 800...3000, rooms: ["Office"], hasSerial: true),
        .init(name: "Computer Monitor 27\"", category: "Electronics", brands: ["Dell", "LG", "BenQ"], priceRange: 200...900, rooms: ["Office"], hasSerial: true),
        .init(name: "Tablet", category: "Electronics", brands: ["Apple", "Samsung", "Amazon"], priceRange: 120...1200, rooms: ["Living Room", "Bedroom"], hasSerial: true),
        .init(name: "Smartphone", category: "Electronics", brands: ["Apple", "Google", "Samsung"], priceRange: 400...1400, rooms: ["Primary Bedroom", "Bedroom"], hasSerial: true),
        .init(name: "Soundbar", category: "Electronics", brands: ["Sonos", "Bose", "Yamaha"], priceRange: 200...900, rooms: ["Living Room"], hasSerial: true),
        .init(name: "Wireless Headphones", category: "Electronics", brands: ["Sony", "Bose", "Apple"], priceRange: 150...550, rooms: ["Bedroom", "Office"], hasSerial: true),
        .init(name: "Game Console", category: "Electronics", brands: ["Sony", "Microsoft", "Nintendo"], priceRange: 300...550, rooms: ["Living Room", "Bedroom"], hasSerial: true),
        .init(name: "Mirrorless Camera", category: "Electronics", brands: ["Sony", "Canon", "Fujifilm", "Nikon"], priceRange: 800...2600, rooms: ["Office", "Primary Bedroom"], hasSerial: true),
        .init(name: "Wi-Fi Router", category: "Electronics", brands: ["Netgear", "TP-Link", "Asus"], priceRange: 80...400, rooms: ["Office", "Living Room"], hasSerial: true),
        .init(name: "Smart Speaker", category: "Electronics", brands: ["Sonos", "Amazon", "Google"], priceRange: 50...450, rooms: ["Kitchen", "Living Room", "Bedroom"], hasSerial: true),
        .init(name: "Printer", category: "Electronics", brands: ["Brother", "HP", "Canon"], priceRange: 120...450, rooms: ["Office"], hasSerial: true),
        // Furniture
        .init(name: "Sectional Sofa", category: "Furniture", brands: ["West Elm", "IKEA", "Crate & Barrel"], priceRange: 900...4200, rooms: ["Living Room"], hasSerial: false),
        .init(name: "Dining Table", category: "Furniture", brands: ["Pottery Barn", "IKEA", "Article"], priceRange: 400...2500, rooms: ["Dining Room", "Kitchen"], hasSerial: false),
        .init(name: "Dining Chair", category: "Furniture", brands: ["IKEA", "Article", "Herman Miller"], priceRange: 60...450, rooms: ["Dining Room", "Kitchen"], hasSerial: false),
        .init(name: "Queen Bed Frame", category: "Furniture", brands: ["Casper", "IKEA", "Room & Board"], priceRange: 300...2200, rooms: ["Primary Bedroom", "Bedroom"], hasSerial: false),
        .init(name: "Mattress", category: "Furniture", brands: ["Tempur-Pedic", "Casper", "Purple"], priceRange: 600...3500, rooms: ["Primary Bedroom", "Bedroom"], hasSerial: true),
        .init(name: "Office Chair", category: "Furniture", brands: ["Herman Miller", "Steelcase", "IKEA"], priceRange: 150...1600, rooms: ["Office"], hasSerial: true),
        .init(name: "Standing Desk", category: "Furniture", brands: ["Uplift", "Fully", "IKEA"], priceRange: 300...1200, rooms: ["Office"], hasSerial: false),
        .init(name: "Bookshelf", category: "Furniture", brands: ["IKEA", "Room & Board"], priceRange: 80...900, rooms: ["Living Room", "Office", "Bedroom"], hasSerial: false),
        .init(name: "Dresser", category: "Furniture", brands: ["West Elm", "IKEA", "Pottery Barn"], priceRange: 250...1800, rooms: ["Primary Bedroom", "Bedroom"], hasSerial: false),
        .init(name: "Armchair", category: "Furniture", brands: ["Article", "West Elm"], priceRange: 300...1500, rooms: ["Living Room"], hasSerial: false),
        // Appliances
        .init(name: "Refrigerator", category: "Appliances", brands: ["Samsung", "Whirlpool", "Bosch", "LG"], priceRange: 1200...4000, rooms: ["Kitchen"], hasSerial: true),
        .init(name: "Washing Machine", category: "Appliances", brands: ["LG", "Miele", "Whirlpool"], priceRange: 600...2000, rooms: ["Laundry", "Basement"], hasSerial: true),
        .init(name: "Dryer", category: "Appliances", brands: ["LG", "Whirlpool", "Samsung"], priceRange: 550...1500, rooms: ["Laundry", "Basement"], hasSerial: true),
        .init(name: "Dishwasher", category: "Appliances", brands: ["Bosch", "Miele", "KitchenAid"], priceRange: 550...1800, rooms: ["Kitchen"], hasSerial: true),
        .init(name: "Microwave", category: "Appliances", brands: ["Panasonic", "Breville", "GE"], priceRange: 90...500, rooms: ["Kitchen"], hasSerial: true),
        .init(name: "Robot Vacuum", category: "Appliances", brands: ["iRobot", "Roborock", "Ecovacs"], priceRange: 200...1100, rooms: ["Living Room"], hasSerial: true),
        .init(name: "Cordless Vacuum", category: "Appliances", brands: ["Dyson", "Shark"], priceRange: 200...750, rooms: ["Laundry", "Bedroom"], hasSerial: true),
        .init(name: "Air Purifier", category: "Appliances", brands: ["Coway", "Blueair", "Dyson"], priceRange: 150...700, rooms: ["Bedroom", "Living Room"], hasSerial: true),
        .init(name: "Espresso Machine", category: "Kitchenware", brands: ["Breville", "De'Longhi", "La Marzocco"], priceRange: 300...3500, rooms: ["Kitchen"], hasSerial: true),
        // Kitchenware
        .init(name: "Stand Mixer", category: "Kitchenware", brands: ["KitchenAid", "Kenwood"], priceRange: 280...700, rooms: ["Kitchen"], hasSerial: true),
        .init(name: "Cast Iron Dutch Oven", category: "Kitchenware", brands: ["Le Creuset", "Staub", "Lodge"], priceRange: 60...450, rooms: ["Kitchen"], hasSerial: false),
        .init(name: "Knife Set", category: "Kitchenware", brands: ["Wüsthof", "Zwilling", "Shun"], priceRange: 150...900, rooms: ["Kitchen"], hasSerial: false),
        .init(name: "Blender", category: "Kitchenware", brands: ["Vitamix", "Blendtec", "Ninja"], priceRange: 90...650, rooms: ["Kitchen"], hasSerial: true),
        .init(name: "Cookware Set", category: "Kitchenware", brands: ["All-Clad", "Calphalon", "Tefal"], priceRange: 200...1200, rooms: ["Kitchen"], hasSerial: false),
        // Jewelry & Watches
        .init(name: "Engagement Ring", category: "Jewelry & Watches", brands: ["Tiffany & Co.", "Cartier", "Blue Nile"], priceRange: 2500...15000, rooms: ["Primary Bedroom"], hasSerial: false),
        .init(name: "Automatic Watch", category: "Jewelry & Watches", brands: ["Omega", "Rolex", "Seiko", "Tudor"], priceRange: 400...12000, rooms: ["Primary Bedroom"], hasSerial: true),
        .init(name: "Pearl Necklace", category: "Jewelry & Watches", brands: ["Mikimoto", "Blue Nile"], priceRange: 300...5000, rooms: ["Primary Bedroom"], hasSerial: false),
        .init(name: "Gold Bracelet", category: "Jewelry & Watches", brands: ["Cartier", "Pandora", "Mejuri"], priceRange: 150...7000, rooms: ["Primary Bedroom"], hasSerial: false),
        // Clothing & Accessories
        .init(name: "Wool Coat", category: "Clothing & Accessories", brands: ["Max Mara", "J.Crew", "Uniqlo"], priceRange: 120...1800, rooms: ["Primary Bedroom", "Bedroom"], hasSerial: false),
        .init(name: "Leather Handbag", category: "Clothing & Accessories", brands: ["Coach", "Louis Vuitton", "Longchamp"], priceRange: 200...4000, rooms: ["Primary Bedroom"], hasSerial: true),
        .init(name: "Winter Boots", category: "Clothing & Accessories", brands: ["Sorel", "Timberland", "Blundstone"], priceRange: 120...350, rooms: ["Bedroom", "Primary Bedroom"], hasSerial: false),
        .init(name: "Sunglasses", category: "Clothing & Accessories", brands: ["Ray-Ban", "Oakley", "Persol"], priceRange: 120...450, rooms: ["Primary Bedroom"], hasSerial: false),
        // Art & Decor
        .init(name: "Framed Print", category: "Art & Decor", brands: ["Society6", "Minted"], priceRange: 60...800, rooms: ["Living Room", "Office", "Dining Room"], hasSerial: false),
        .init(name: "Oil Painting", category: "Art & Decor", brands: ["Local artist"], priceRange: 400...9000, rooms: ["Living Room", "Dining Room"], hasSerial: false),
        .init(name: "Area Rug", category: "Art & Decor", brands: ["Ruggable", "Loloi", "West Elm"], priceRange: 150...2500, rooms: ["Living Room", "Bedroom", "Dining Room"], hasSerial: false),
        .init(name: "Floor Lamp", category: "Art & Decor", brands: ["IKEA", "Artemide", "West Elm"], priceRange: 60...900, rooms: ["Living Room", "Office"], hasSerial: false),
        .init(name: "Ceramic Vase", category: "Art & Decor", brands: ["Heath Ceramics", "Kähler"], priceRange: 40...400, rooms: ["Living Room", "Dining Room"], hasSerial: false),
        // Musical Instruments
        .init(name: "Acoustic Guitar", category: "Musical Instruments", brands: ["Martin", "Taylor", "Yamaha"], priceRange: 300...4000, rooms: ["Living Room", "Bedroom"], hasSerial: true),
        .init(name: "Digital Piano", category: "Musical Instruments", brands: ["Yamaha", "Roland", "Kawai"], priceRange: 600...3500, rooms: ["Living Room"], hasSerial: true),
        .init(name: "Electric Guitar", category: "Musical Instruments", brands: ["Fender", "Gibson", "PRS"], priceRange: 500...3500, rooms: ["Bedroom", "Basement"], hasSerial: true),
        .init(name: "Violin", category: "Musical Instruments", brands: ["Yamaha", "Stentor"], priceRange: 200...6000, rooms: ["Bedroom"], hasSerial: true),
        // Tools & Equipment
        .init(name: "Cordless Drill", category: "Tools & Equipment", brands: ["DeWalt", "Makita", "Milwaukee", "Bosch"], priceRange: 90...350, rooms: ["Garage", "Basement"], hasSerial: true),
        .init(name: "Lawn Mower", category: "Tools & Equipment", brands: ["Honda", "EGO", "Toro"], priceRange: 300...900, rooms: ["Garage", "Outdoor"], hasSerial: true),
        .init(name: "Mechanic's Tool Set", category: "Tools & Equipment", brands: ["Craftsman", "Stanley"], priceRange: 100...700, rooms: ["Garage"], hasSerial: false),
        .init(name: "Pressure Washer", category: "Tools & Equipment", brands: ["Kärcher", "Ryobi"], priceRange: 150...600, rooms: ["Garage"], hasSerial: true),
        .init(name: "Table Saw", category: "Tools & Equipment", brands: ["SawStop", "DeWalt", "Bosch"], priceRange: 500...3500, rooms: ["Garage", "Basement"], hasSerial: true),
        // Sports & Outdoors
        .init(name: "Road Bike", category: "Sports & Outdoors", brands: ["Trek", "Specialized", "Canyon"], priceRange: 900...6000, rooms: ["Garage"], hasSerial: true),
        .init(name: "Camping Tent", category: "Sports & Outdoors", brands: ["REI", "MSR", "Big Agnes"], priceRange: 150...700, rooms: ["Garage", "Attic", "Basement"], hasSerial: false),
        .init(name: "Kayak", category: "Sports & Outdoors", brands: ["Old Town", "Perception"], priceRange: 400...1800, rooms: ["Garage", "Outdoor"], hasSerial: true),
        .init(name: "Golf Clubs", category: "Sports & Outdoors", brands: ["Callaway", "TaylorMade", "Titleist"], priceRange: 400...2500, rooms: ["Garage"], hasSerial: false),
        .init(name: "Gas Grill", category: "Sports & Outdoors", brands: ["Weber", "Traeger"], priceRange: 350...1500, rooms: ["Outdoor"], hasSerial: true),
        .init(name: "Treadmill", category: "Sports & Outdoors", brands: ["Peloton", "NordicTrack"], priceRange: 800...3500, rooms: ["Basement"], hasSerial: true),
        // Books & Media, Collectibles, Toys
        .init(name: "Vinyl Record Collection", category: "Books & Media", brands: ["Various"], priceRange: 200...3000, rooms: ["Living Room", "Basement"], hasSerial: false),
        .init(name: "First Edition Novel", category: "Books & Media", brands: ["Penguin", "Knopf"], priceRange: 80...2500, rooms: ["Office", "Living Room"], hasSerial: false),
        .init(name: "Coffee Table Books", category: "Books & Media", brands: ["Taschen", "Phaidon"], priceRange: 40...300, rooms: ["Living Room"], hasSerial: false),
        .init(name: "Trading Card Collection", category: "Collectibles", brands: ["Pokémon", "Topps"], priceRange: 100...5000, rooms: ["Bedroom", "Attic"], hasSerial: false),
        .init(name: "Coin Collection", category: "Collectibles", brands: ["US Mint", "Royal Mint"], priceRange: 200...8000, rooms: ["Office", "Primary Bedroom"], hasSerial: false),
        .init(name: "LEGO Set", category: "Toys & Games", brands: ["LEGO"], priceRange: 50...850, rooms: ["Bedroom", "Living Room"], hasSerial: false),
        .init(name: "Board Game Collection", category: "Toys & Games", brands: ["Various"], priceRange: 80...600, rooms: ["Living Room", "Basement"], hasSerial: false),
        .init(name: "Stroller", category: "Other", brands: ["UPPAbaby", "Bugaboo"], priceRange: 400...1400, rooms: ["Garage", "Bedroom"], hasSerial: true),
        .init(name: "Luggage Set", category: "Other", brands: ["Samsonite", "Away", "Rimowa"], priceRange: 200...1500, rooms: ["Attic", "Basement", "Garage"], hasSerial: false),
    ]

    static let adjectives = ["", "", "", "Vintage ", "Black ", "White ", "Walnut ", "Oak ", "Grey ", "Blue ", "Compact ", "Large ", "Small "]
    static let tags = ["insured", "gift", "heirloom", "kids", "under warranty", "shared", "work", "antique", "needs repair"]
    static let vendors = ["Best Buy", "Costco", "Target", "Amazon", "Home Depot", "IKEA", "Walmart", "Apple Store",
                          "John Lewis", "MediaMarkt", "Crate & Barrel", "REI", "Williams Sonoma"]
    static let notes = [
        "Bought for the new apartment.", "Extended warranty purchased at checkout.", "Original box kept in the attic.",
        "Appraised last year.", "Small scratch on the left side.", "Received as a wedding gift.",
        "Manual and accessories in the drawer.", "Café-style setup, used daily.",
    ]
}
