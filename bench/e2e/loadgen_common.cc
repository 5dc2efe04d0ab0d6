// hw_loadgen's shared helpers (loadgen.h).
#include "bench/e2e/loadgen.h"

#include <sys/resource.h>

#include <cctype>
#include <random>

namespace hw::loadgen {

std::map<std::string, std::string>& client_settings() {
  static std::map<std::string, std::string> settings;
  return settings;
}

std::string client_setting(const std::string& key, const std::string& fallback) {
  auto it = client_settings().find(key);
  return it == client_settings().end() ? fallback : it->second;
}

rd_kafka_conf_t* make_conf(const std::string& bootstrap, const std::map<std::string, std::string>& extra) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> all{{"bootstrap.servers", bootstrap}, {"log_level", "3"}};
  for (const auto& [k, v] : extra) all[k] = v;
  for (const auto& [k, v] : client_settings()) all[k] = v;
  for (const auto& [k, v] : all) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(k + ": " + err);
    }
  }
  return conf;
}

rd_kafka_t* make_client(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) throw std::runtime_error(std::string("rd_kafka_new: ") + err);
  return rk;
}

std::string make_payload(size_t size) {
  std::mt19937 rng(42);
  std::string s(size, 'A');
  for (auto& c : s) c = static_cast<char>('A' + rng() % 26);
  return s;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string json_safe(std::string s) {
  for (auto& c : s)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '\'';
  return s;
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

metadata_ptr topic_metadata(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
  rd_kafka_topic_destroy(rkt);
  metadata_ptr owned(md, rd_kafka_metadata_destroy);
  if (err || md->topic_cnt != 1 || md->topics[0].err)
    throw std::runtime_error("metadata for " + topic + ": " + rd_kafka_err2str(err ? err : md->topics[0].err));
  return owned;
}

}  // namespace hw::loadgen
