#pragma once
// Which Java runtime Kafka runs on, as far as it changes Kafka's assignments.
// One JDK change does: from Java 19, `new HashSet<>(collection)` sizes its
// table for max(size, 12) / 0.75 rounded up, where Java 17 takes
// size / 0.75 + 1 (16 at least). For sets of 12, 24, 48, ... elements the
// tables differ in size, so their order can differ, and with it which
// partitions Kafka's uniform assignor keeps. Nothing else in the JDK
// collections the assignors use changed between Java 17 and 25.

namespace hw::broker::group::consumer {

enum class jdk_release {
  java17,           // also 18; the JVM Highwater's tests run Kafka 4.3.1 on
  java19_or_later,  // 21 and 25 among them
};

}  // namespace hw::broker::group::consumer
